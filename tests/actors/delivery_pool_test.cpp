#include "actors/delivery_pool.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "actors/breaker_actor.hpp"
#include "core/model/delivery_end.hpp"
#include "tests/actors/deterministic.hpp"
#include "tests/actors/fake_poster.hpp"
#include "tests/actors/fake_router.hpp"
#include "topology/route_settings.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

const std::string topic = "brew.shipments.v1";

std::string key(std::int64_t offset) { return topic + ":0:" + std::to_string(offset); }

// What the stand-in for the route's consumer saw: the outcomes the pool reported, the records
// it told were answered 2xx with their receipts on the way, and the breaker's state changes (it
// subscribes too); and what a router that acknowledges nothing by itself was given.
struct seen_by_consumer {
  std::vector<delivery_outcome> outcomes;
  std::vector<record_position> answered;
  std::vector<onward_record> at_router;
  std::vector<breaker_change> changes;
};

// The route's delivery pool with its real breaker; the receiver is a fake the test answers, and
// a stand-in plays the consumer (it hands the pool records and keeps the outcomes).
struct DeliveryPool : ::testing::Test {
  static constexpr auto open_timeout = 10s;

  static route_config default_route() {
    route_config route;
    route.name = "shipments";
    route.topic = topic;
    route.hmac_secret = "secret";
    route.retry.initial = 100ms;
    route.retry.max_attempts = 4;
    return route;
  }

  // `router_acknowledges`: false for a router that keeps what it is given (seen->at_router)
  // and acknowledges nothing until the test says so.
  explicit DeliveryPool(route_config route = default_route(), bool router_acknowledges = true) {
    metrics = std::make_shared<actors::route_metrics>();
    breaker = d.sys->spawn(actors::breaker_actor, route.name, std::string{},
                           breaker_settings{3, open_timeout, 1, /*gone_probe_interval=*/60000ms},
                           metrics);
    router = router_acknowledges ? spawn_acknowledging_router(*d.sys) : spawn_keeping_router();
    pool = d.sys->spawn(actors::delivery_pool, topology::delivery_pool_settings_of(route),
                        std::shared_ptr<http::poster>{http}, breaker, router, metrics,
                        std::uint64_t{1});
    consumer = d.sys->spawn(
        [](caf::event_based_actor* self, std::shared_ptr<seen_by_consumer> log,
           caf::actor to) -> caf::behavior {
          return {
              [=](actors::deliver_atom, actors::record_batch& records) {
                self->send(to, actors::deliver_atom::value, std::move(records));
              },
              [log](actors::outcome_atom, const actors::outcome_batch& outcomes) {
                log->outcomes.insert(log->outcomes.end(), outcomes.begin(), outcomes.end());
              },
              [log](actors::receipt_atom, const actors::answered_batch& answered) {
                log->answered.insert(log->answered.end(), answered.begin(), answered.end());
              },
              [log](actors::state_atom, const breaker_change& c) { log->changes.push_back(c); },
          };
        },
        seen, pool);
    caf::anon_send(breaker, actors::subscribe_atom::value, pool);
    caf::anon_send(breaker, actors::subscribe_atom::value, consumer);
    d.run();
  }

  ~DeliveryPool() override {
    for (const auto& a : {consumer, pool, router, breaker}) {
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    }
    d.run();
  }

  caf::actor spawn_keeping_router() {
    return d.sys->spawn(
        [](caf::event_based_actor*, std::shared_ptr<seen_by_consumer> log) -> caf::behavior {
          return {[log](actors::route_atom, const std::vector<onward_record>& batch) {
            log->at_router.insert(log->at_router.end(), batch.begin(), batch.end());
          }};
        },
        seen);
  }

  // The consumer hands the pool p0's record at `offset`.
  void deliver(std::int64_t offset) {
    record r;
    r.topic = topic;
    r.partition = 0;
    r.offset = offset;
    r.value = payload{"{\"offset\":" + std::to_string(offset) + "}"};
    caf::anon_send(consumer, actors::deliver_atom::value, actors::record_batch{std::move(r)});
    d.run();
  }

  // Failed deliveries of other records, told to the breaker as the pool tells it.
  void other_deliveries_fail(int n) {
    const auto generation = seen->changes.back().generation;
    for (int i = 0; i < n; ++i) {
      caf::anon_send(breaker, actors::outcome_atom::value, false, false, generation,
                     /*gone=*/false, std::int64_t{0}, breaker_failure{"http_503", "503"});
    }
    d.run();
  }

  // As the breaker last published it ("closed", "open", "half_open").
  std::string breaker_now() const { return std::string{to_string(seen->changes.back().to)}; }

  deterministic_system d;
  std::shared_ptr<fake_poster> http = std::make_shared<fake_poster>();
  std::shared_ptr<seen_by_consumer> seen = std::make_shared<seen_by_consumer>();
  std::shared_ptr<actors::route_metrics> metrics;
  caf::actor breaker;
  caf::actor router;
  caf::actor pool;
  caf::actor consumer;
};

// -- breaker change during backoff -------------------------------------------------------------

TEST_F(DeliveryPool, ARetryDueWhileTheBreakerIsOpenWaitsAndGoesOutOnceWhenItLeavesOpen) {
  deliver(0);
  ASSERT_EQ(http->unanswered(), std::vector<std::string>{key(0)});
  http->answer(key(0), 503, "1");  // the retry is due in 1 s (Retry-After over the jitter)
  d.run();
  ASSERT_TRUE(http->unanswered().empty()) << "retried before its backoff";
  other_deliveries_fail(3);
  ASSERT_EQ(breaker_now(), "open");
  d.advance(1s);  // the retry's timer fires
  EXPECT_EQ(http->posted.size(), 1U) << "an attempt went out while the breaker was Open";
  d.advance(open_timeout - 1s - 1ms);
  EXPECT_EQ(http->posted.size(), 1U) << "an attempt went out while the breaker was Open";
  EXPECT_TRUE(seen->outcomes.empty());
  d.advance(1ms);
  ASSERT_EQ(breaker_now(), "half_open");
  ASSERT_EQ(http->unanswered(), std::vector<std::string>{key(0)})
      << "the record waiting for the breaker was not attempted when it left Open";
  http->answer(key(0), 200);
  d.run();
  EXPECT_EQ(breaker_now(), "closed") << "the record was the Half-Open probe";
  d.advance(1min);
  ASSERT_EQ(seen->outcomes.size(), 1U);
  const auto& o = seen->outcomes.front();
  EXPECT_EQ(o.record.offset, 0);
  EXPECT_EQ(o.end, delivery_end::delivered);
  EXPECT_EQ(o.attempts, 2);
  EXPECT_EQ(http->posted.size(), 2U);
}

// Two records wait for the breaker: Half-Open lets one through as the probe, and the other goes
// once the probe closed the breaker.
TEST_F(DeliveryPool, OfTwoRecordsWaitingForTheBreakerHalfOpenLetsOnlyTheProbeThrough) {
  deliver(0);
  deliver(1);
  http->answer(key(0), 503, "1");
  http->answer(key(1), 503, "1");
  d.run();
  other_deliveries_fail(3);
  ASSERT_EQ(breaker_now(), "open");
  d.advance(1s);  // both retries fall due while it is Open
  EXPECT_EQ(http->posted.size(), 2U) << "an attempt went out while the breaker was Open";
  d.advance(open_timeout - 1s);
  ASSERT_EQ(breaker_now(), "half_open");
  const auto probes = http->unanswered();
  ASSERT_EQ(probes.size(), 1U) << "Half-Open let more than its one probe through";
  http->answer(probes.front(), 200);
  d.run();
  ASSERT_EQ(breaker_now(), "closed");
  const auto rest = http->unanswered();
  ASSERT_EQ(rest.size(), 1U) << "the record that was not the probe did not go once it closed";
  EXPECT_NE(rest.front(), probes.front());
  http->answer(rest.front(), 200);
  d.run();
  d.advance(1min);
  ASSERT_EQ(seen->outcomes.size(), 2U);
  EXPECT_NE(seen->outcomes[0].record.offset, seen->outcomes[1].record.offset);
  for (const auto& o : seen->outcomes) {
    EXPECT_EQ(o.end, delivery_end::delivered);
  }
  EXPECT_EQ(http->posted.size(), 4U);
}

// -- the partner's contract -------------------------------------------------------------------

struct RateLimitedDeliveryPool : DeliveryPool {
  static route_config limited() {
    auto r = default_route();
    r.rate_limit = rate_limit_settings{2, 1};  // 2/s, no burst to speak of
    return r;
  }
  RateLimitedDeliveryPool() : DeliveryPool(limited()) {}
};

TEST_F(RateLimitedDeliveryPool, AnAttemptWaitsForItsTokenOnTheActorsTimer) {
  deliver(0);
  deliver(1);
  deliver(2);
  EXPECT_EQ(http->unanswered(), std::vector<std::string>{key(0)});
  EXPECT_EQ(metrics->gauges[actors::route_gauge::rate_limit_waiting].load(), 2);
  d.advance(495ms);
  EXPECT_EQ(http->posted.size(), 1U) << "an attempt went out before its token";
  d.advance(10ms);
  EXPECT_EQ(http->unanswered(), (std::vector<std::string>{key(0), key(1)}));
  d.advance(500ms);
  EXPECT_EQ(http->unanswered(), (std::vector<std::string>{key(0), key(1), key(2)}));
  EXPECT_EQ(metrics->gauges[actors::route_gauge::rate_limit_waiting].load(), 0);
  EXPECT_EQ(metrics->deliveries[delivery_counter::rate_limited].load(), 2U);
}

TEST_F(RateLimitedDeliveryPool, TheConsumersQuotaShareSlowsIt) {
  caf::anon_send(pool, actors::share_atom::value, std::int32_t{1}, std::int32_t{4});
  d.run();
  EXPECT_EQ(metrics->rate_limit.load(), 0.5);
  deliver(0);
  deliver(1);
  d.advance(1990ms);
  EXPECT_EQ(http->posted.size(), 1U);
  d.advance(20ms);
  EXPECT_EQ(http->posted.size(), 2U);
}

struct AuthenticatedDeliveryPool : DeliveryPool {
  static route_config authenticated() {
    auto r = default_route();
    r.auth.bearer_token_file = "/run/token";
    return r;
  }
  AuthenticatedDeliveryPool() : DeliveryPool(authenticated()) {
    keeper = d.sys->spawn(
        [](caf::event_based_actor* self,
           std::shared_ptr<std::vector<std::string>> asked) -> caf::behavior {
          return {
              [asked](actors::refresh_atom, const std::string& stale) {
                asked->push_back(stale);
                return std::string{"Bearer fresh"};
              },
              [self](actors::subscribe_atom, const caf::actor& to) {
                self->send(to, actors::credentials_atom::value, std::string{"Bearer first"});
              },
          };
        },
        refreshes);
  }
  ~AuthenticatedDeliveryPool() override {
    caf::anon_send_exit(keeper, caf::exit_reason::user_shutdown);
    d.run();
  }

  std::string authorization_of(std::size_t i) const {
    for (const auto& [name, value] : http->posted.at(i).request.headers) {
      if (name == "Authorization") {
        return value;
      }
    }
    return "<absent>";
  }

  caf::actor keeper;
  std::shared_ptr<std::vector<std::string>> refreshes =
      std::make_shared<std::vector<std::string>>();
};

TEST_F(AuthenticatedDeliveryPool, NothingGoesBeforeTheCredentialsAndA401RefreshesThemOnce) {
  deliver(0);
  EXPECT_TRUE(http->posted.empty()) << "sent without credentials";
  EXPECT_EQ(metrics->gauges[actors::route_gauge::credentials_waiting].load(), 1);
  caf::anon_send(keeper, actors::subscribe_atom::value, pool);
  d.run();
  ASSERT_EQ(http->posted.size(), 1U);
  EXPECT_EQ(authorization_of(0), "Bearer first");
  http->answer(key(0), 401);
  d.run();
  EXPECT_EQ(*refreshes, std::vector<std::string>{"Bearer first"});
  ASSERT_EQ(http->posted.size(), 2U);
  EXPECT_EQ(authorization_of(1), "Bearer fresh");
  http->answer(key(0), 200);
  d.run();
  ASSERT_EQ(seen->outcomes.size(), 1U);
  EXPECT_EQ(seen->outcomes.front().end, delivery_end::delivered);
  EXPECT_EQ(seen->outcomes.front().attempts, 2);
}

// -- receipts ---------------------------------------------------------------------------------

// With a receipts topic: a record answered 2xx is told of to its consumer at once
// (receipt_atom), its outcome only once the router says the broker acknowledged its receipt
// (onward_acked_atom); a router that goes leaves the record without an outcome.
struct DeliveryPoolReceipts : DeliveryPool {
  static route_config with_receipts() {
    auto r = default_route();
    r.receipts_topic = "brew.shipments.receipts";
    return r;
  }
  DeliveryPoolReceipts() : DeliveryPool(with_receipts(), /*router_acknowledges=*/false) {}
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
