// The delivery pool with a receipts topic: a record answered 2xx is told of to its consumer at
// once (receipt_atom), its outcome only once the router says the broker acknowledged its
// receipt (onward_acked_atom); a router that goes leaves the record without an outcome.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "actors/breaker_actor.hpp"
#include "actors/delivery_pool.hpp"
#include "tests/actors/deterministic.hpp"
#include "tests/actors/fake_poster.hpp"
#include "topology/route_settings.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

const std::string topic = "brew.shipments.v1";

// What the stand-ins saw: the consumer's notices and outcomes, the router's batches.
struct seen_here {
  std::vector<record_position> answered;
  std::vector<delivery_outcome> outcomes;
  std::vector<onward_record> at_router;
};

struct DeliveryPoolReceipts : ::testing::Test {
  DeliveryPoolReceipts() {
    route_config route;
    route.name = "shipments";
    route.topic = topic;
    route.hmac_secret = "secret";
    route.receipts_topic = "brew.shipments.receipts";
    metrics = std::make_shared<actors::route_metrics>();
    breaker = d.sys->spawn(actors::breaker_actor, route.name, std::string{},
                           breaker_settings{3, 10s, 1, /*gone_probe_interval=*/60000ms}, metrics);
    // A router that keeps what it is given and acknowledges nothing by itself.
    router = d.sys->spawn(
        [](caf::event_based_actor*, std::shared_ptr<seen_here> log) -> caf::behavior {
          return {[log](actors::route_atom, const std::vector<onward_record>& batch) {
            log->at_router.insert(log->at_router.end(), batch.begin(), batch.end());
          }};
        },
        seen);
    pool = d.sys->spawn(actors::delivery_pool, topology::delivery_pool_settings_of(route),
                        std::shared_ptr<http::poster>{http}, breaker, router, metrics,
                        std::uint64_t{1});
    consumer = d.sys->spawn(
        [](caf::event_based_actor* self, std::shared_ptr<seen_here> log,
           caf::actor to) -> caf::behavior {
          return {
              [=](actors::deliver_atom, actors::record_batch& records) {
                self->send(to, actors::deliver_atom::value, std::move(records));
              },
              [log](actors::receipt_atom, const actors::answered_batch& answered) {
                log->answered.insert(log->answered.end(), answered.begin(), answered.end());
              },
              [log](actors::outcome_atom, const actors::outcome_batch& outcomes) {
                log->outcomes.insert(log->outcomes.end(), outcomes.begin(), outcomes.end());
              },
              [](actors::state_atom, const breaker_change&) {},
          };
        },
        seen, pool);
    d.run();
  }

  ~DeliveryPoolReceipts() override {
    for (const auto& a : {consumer, pool, router, breaker}) {
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    }
    d.run();
  }

  void deliver(std::int64_t offset) {
    record r;
    r.topic = topic;
    r.partition = 0;
    r.offset = offset;
    r.value = payload{"{\"offset\":" + std::to_string(offset) + "}"};
    caf::anon_send(consumer, actors::deliver_atom::value, actors::record_batch{std::move(r)});
    d.run();
  }

  static std::string key(std::int64_t offset) { return topic + ":0:" + std::to_string(offset); }

  deterministic_system d;
  std::shared_ptr<fake_poster> http = std::make_shared<fake_poster>();
  std::shared_ptr<seen_here> seen = std::make_shared<seen_here>();
  std::shared_ptr<actors::route_metrics> metrics;
  caf::actor breaker;
  caf::actor router;
  caf::actor pool;
  caf::actor consumer;
};

TEST_F(DeliveryPoolReceipts, TheConsumerHearsOfTheAnswerAtOnceAndOfTheOutcomeOnceTheReceiptIsIn) {
  deliver(0);
  deliver(1);
  http->answer(key(0), 200);
  http->answer(key(1), 202);
  d.run();
  ASSERT_EQ(seen->answered.size(), 2U);
  EXPECT_EQ(seen->answered[0].offset, 0);
  EXPECT_EQ(seen->answered[1].offset, 1);
  EXPECT_TRUE(seen->outcomes.empty()) << "no outcome before the receipt is acknowledged";
  ASSERT_EQ(seen->at_router.size(), 2U);
  EXPECT_EQ(seen->at_router[0].produce.topic, "brew.shipments.receipts");

  // The router acknowledges the second receipt only, then the first twice (a stale tag as well).
  caf::anon_send(pool, actors::onward_acked_atom::value,
                 std::vector<std::uint64_t>{seen->at_router[1].tag});
  d.run();
  ASSERT_EQ(seen->outcomes.size(), 1U);
  EXPECT_EQ(seen->outcomes[0].record.offset, 1);
  EXPECT_EQ(seen->outcomes[0].end, delivery_end::delivered);
  caf::anon_send(pool, actors::onward_acked_atom::value,
                 std::vector<std::uint64_t>{seen->at_router[0].tag, seen->at_router[0].tag});
  d.run();
  ASSERT_EQ(seen->outcomes.size(), 2U) << "one outcome per record, however often told";
  EXPECT_EQ(seen->outcomes[1].record.offset, 0);
}

TEST_F(DeliveryPoolReceipts, ARouterThatGoesLeavesItsRecordsWithoutAnOutcome) {
  deliver(0);
  http->answer(key(0), 200);
  d.run();
  ASSERT_EQ(seen->at_router.size(), 1U);
  caf::anon_send_exit(router, caf::exit_reason::user_shutdown);
  d.run();
  caf::anon_send(pool, actors::onward_acked_atom::value,
                 std::vector<std::uint64_t>{seen->at_router[0].tag});
  d.run();
  EXPECT_TRUE(seen->outcomes.empty())
      << "its record stays uncommitted: the pool forgot it when the router went";
  deliver(1);
  EXPECT_EQ(http->unanswered(), std::vector<std::string>{key(1)}) << "the pool goes on";
}

}  // namespace
}  // namespace courier::testing
