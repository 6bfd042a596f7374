// The retry router against librdkafka's mock cluster (label integration): it answers only on
// the broker's acknowledgement, a destination with fewer partitions than the source does not
// make a produce fail forever, a fatal idempotent-producer error leaves no request waiting, and
// records still in its producer when it stops do not keep the actor system from shutting down.

#include "actors/retry_router.hpp"

#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <librdkafka/rdkafka_mock.h>

#include "actors/messages.hpp"
#include "core/kafka/producer.hpp"
#include "core/kafka_mock/mock_cluster.hpp"
#include "demo/topic_reader.hpp"
#include "tests/support/wait_until.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

onward_record dlq_record(std::int32_t partition, const std::string& key) {
  onward_record req;
  req.produce.topic = "brew.shipments.dlq";
  req.produce.partition = partition;
  req.produce.key = key;
  req.produce.value = payload{R"({"shipment_id":")" + key + R"("})"};
  req.produce.headers = {
      {"courier.idempotency.key", "brew.shipments.v1:" + std::to_string(partition) + ":0"}};
  return req;
}

struct RetryRouter : ::testing::Test {
  RetryRouter() {
    actors::add_message_types(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
  }
  std::shared_ptr<actors::router_metrics> metrics = std::make_shared<actors::router_metrics>();
  ~RetryRouter() override { caf::anon_send_exit(router, caf::exit_reason::user_shutdown); }
  void start(std::map<std::string, std::string> properties = {}) {
    router = sys->spawn<caf::detached>(actors::retry_router, cluster.bootstrap_servers(),
                                       std::move(properties), std::vector<std::string>{}, metrics);
  }
  // Sends one record as a requester's batch: true once the router told it was acknowledged.
  bool dispatch(onward_record req) {
    caf::scoped_actor self{*sys};
    constexpr std::uint64_t tag = 4242;
    req.tag = tag;
    self->send(router, actors::route_atom::value, std::vector<onward_record>{std::move(req)});
    bool acked = false;
    self->receive(
        [&](actors::onward_acked_atom, const std::vector<std::uint64_t>& tags) {
          acked = tags == std::vector<std::uint64_t>{tag};
        },
        caf::after(std::chrono::seconds{30}) >> [] { ADD_FAILURE() << "never acknowledged"; });
    return acked;
  }

  // The next request with this api key to broker 1 gets `err`, answered after `rtt`.
  void push_broker_error(std::int16_t api_key, rd_kafka_resp_err_t err,
                         std::chrono::milliseconds rtt) {
    ASSERT_EQ(rd_kafka_mock_broker_push_request_error_rtts(cluster.raw(), 1, api_key, 1, err,
                                                           static_cast<int>(rtt.count())),
              RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  // How many pushed errors for this api key broker 1 has not used up yet.
  std::size_t broker_errors_left(std::int16_t api_key) {
    std::size_t left = 0;
    EXPECT_EQ(rd_kafka_mock_broker_error_stack_cnt(cluster.raw(), 1, api_key, &left),
              RD_KAFKA_RESP_ERR_NO_ERROR);
    return left;
  }
  // Every record in partition 0 of `topic`: its high watermark first, then that many records.
  std::vector<record> read_all(const std::string& topic) {
    kafka::producer probe{cluster.bootstrap_servers()};
    std::int64_t low = 0;
    std::int64_t high = 0;
    EXPECT_EQ(rd_kafka_query_watermark_offsets(probe.raw(), topic.c_str(), 0, &low, &high, 10000),
              RD_KAFKA_RESP_ERR_NO_ERROR);
    auto records =
        demo::read_topic(cluster.bootstrap_servers(), topic, static_cast<std::size_t>(high), 20s);
    EXPECT_EQ(records.size(), static_cast<std::size_t>(high));
    return records;
  }

  kafka::mock_cluster cluster{1};
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf::actor router;
};

TEST_F(RetryRouter, AnswersOnceTheBrokerAcknowledgedTheRecordInItsPartition) {
  cluster.create_topic("brew.shipments.dlq", 4);
  start();
  ASSERT_TRUE(dispatch(dlq_record(2, "shp-2")));
  const auto records = demo::read_topic(cluster.bootstrap_servers(), "brew.shipments.dlq", 1, 20s);
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records.front().partition, 2) << "the source partition, where it exists";
  EXPECT_EQ(records.front().key, "shp-2");
}

TEST_F(RetryRouter, ARecordForAPartitionTheDestinationLacksLandsInOneThatExists) {
  cluster.create_topic("brew.shipments.dlq", 1);  // the source grew to 8 partitions, the DLQ not
  start();
  ASSERT_TRUE(dispatch(dlq_record(5, "shp-5"))) << "acknowledged, not retried forever";
  ASSERT_TRUE(dispatch(dlq_record(7, "shp-7")));
  const auto records = demo::read_topic(cluster.bootstrap_servers(), "brew.shipments.dlq", 2, 20s);
  ASSERT_EQ(records.size(), 2U);
  for (const auto& r : records) {
    EXPECT_EQ(r.partition, 0);
    ASSERT_FALSE(r.headers.empty());
  }
}

constexpr std::int16_t api_produce = 0;            // RD_KAFKAP_Produce
constexpr std::int16_t api_init_producer_id = 22;  // RD_KAFKAP_InitProducerId

// A fatal idempotent-producer error with several requests outstanding. librdkafka raises one
// when the head-of-line ProduceRequest of a partition fails with OUT_OF_ORDER_SEQUENCE_NUMBER
// ("sequence desynchronization with broker", rdkafka_request.c): the mock broker returns it for
// the first request after the warm-up, 500 ms late. One record a request (batch.num.messages=1,
// max.in.flight 5 as in production): when the error arrives, the failing record's request and
// the four behind it are in flight (the mock broker appended those four, their answers wait
// behind the late one) and three more wait in the producer's queue.
//
// What holds across the rebuild: every record is acknowledged to its requester once; every record
// is in its topic at least once. Not exactly once: the new producer has a new producer id, so the
// broker cannot tell that a record it re-produces is one the old producer had written without the
// router hearing back (here the four in flight behind the failing one, written twice). Each
// producer is idempotent, so with one rebuild no record is there more than twice.
TEST_F(RetryRouter, AFatalProducerErrorRebuildsItAndAnswersEveryOutstandingRequestOnce) {
  const std::string topic = "brew.shipments.dlq";
  cluster.create_topic(topic, 1);
  start({{"batch.num.messages", "1"}});
  ASSERT_TRUE(dispatch(dlq_record(0, "shp-warm")));  // the first producer has its producer id
  // Used up only by the next producer id request: the one of a new producer.
  push_broker_error(api_init_producer_id, RD_KAFKA_RESP_ERR_NO_ERROR, 0ms);
  push_broker_error(api_produce, RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, 500ms);

  constexpr int n = 8;
  caf::scoped_actor self{*sys};
  for (int i = 0; i < n; ++i) {
    auto req = dlq_record(0, "shp-" + std::to_string(i));
    req.tag = static_cast<std::uint64_t>(i);
    self->send(router, actors::route_atom::value, std::vector<onward_record>{std::move(req)});
  }
  // Everything the router tells the requester, in order, until every record is acknowledged.
  std::vector<std::string> told;
  std::map<std::uint64_t, int> acked;  // by tag: how often the requester was told
  int answered = 0;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  bool timed_out = false;
  while (answered < n && !timed_out) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    self->receive(
        [&](actors::onward_acked_atom, const std::vector<std::uint64_t>& tags) {
          for (const auto tag : tags) {
            ++acked[tag];
            ++answered;
            told.emplace_back("acknowledged " + std::to_string(tag));
          }
        },
        [&](actors::blocked_atom, const onward_blocked& b) {
          told.push_back((b.blocked ? "blocked " : "unblocked ") + std::to_string(b.tag) + " " +
                         b.reason);
        },
        caf::after(std::max(left, 0ms)) >> [&] { timed_out = true; });
  }
  ASSERT_FALSE(timed_out) << "acknowledged " << answered << " of " << n
                          << ": a record was left waiting";
  EXPECT_EQ(acked.size(), static_cast<std::size_t>(n));
  for (const auto& [tag, times] : acked) {
    EXPECT_EQ(times, 1) << "tag " << tag << " acknowledged more than once";
  }

  // The fatal error came while all of them were outstanding (none was answered before it), and
  // only the failing record's report counted: the others' reports of the old producer are stale.
  ASSERT_GE(told.size(), 2U);
  EXPECT_EQ(told.front().rfind("blocked 0 OUT_OF_ORDER_SEQUENCE_NUMBER", 0), 0U) << told.front();
  EXPECT_EQ(std::count_if(told.begin(), told.end(),
                          [](const std::string& t) { return t.rfind("blocked ", 0) == 0; }),
            1);
  EXPECT_EQ(std::count(told.begin(), told.end(), "unblocked 0 "), 1) << "told once it is through";
  EXPECT_EQ(broker_errors_left(api_produce), 0U);
  EXPECT_EQ(broker_errors_left(api_init_producer_id), 0U)
      << "no second producer asked for a producer id: the router did not rebuild its producer";
  EXPECT_EQ(metrics->producer_rebuilds.load(), 1U) << "and /metrics says so";
  EXPECT_GE(metrics->produce_failures.load(), 1U);
  EXPECT_EQ(metrics->records_failing.load(), 0) << "every failing record got through";

  // The new producer serves new requests; then nothing else arrives for the requester (no
  // request answered twice, no notice left over).
  ASSERT_TRUE(dispatch(dlq_record(0, "shp-after")));
  bool more = true;
  while (more) {
    self->receive(
        [&](actors::onward_acked_atom, const std::vector<std::uint64_t>& tags) {
          ADD_FAILURE() << "acknowledged again: " << tags.size() << " records";
        },
        [&](actors::blocked_atom, const onward_blocked& b) {
          ADD_FAILURE() << "told again: " << b.tag << " blocked " << b.blocked;
        },
        caf::after(0ms) >> [&] { more = false; });
  }

  // Every record at least once, none more than once per producer; nothing but these records.
  std::map<std::string, int> copies;
  for (const auto& r : read_all(topic)) {
    ASSERT_TRUE(r.key.has_value());
    ++copies[*r.key];
    EXPECT_EQ(r.value, R"({"shipment_id":")" + *r.key + R"("})");
  }
  std::vector<std::string> keys{"shp-warm", "shp-after"};
  for (int i = 0; i < n; ++i) {
    keys.push_back("shp-" + std::to_string(i));
  }
  EXPECT_EQ(copies.size(), keys.size());
  int duplicated = 0;
  for (const auto& key : keys) {
    EXPECT_GE(copies[key], 1) << key << " is missing";
    EXPECT_LE(copies[key], 2) << key;
    duplicated += copies[key] > 1 ? 1 : 0;
  }
  EXPECT_EQ(copies["shp-warm"], 1);
  EXPECT_EQ(copies["shp-after"], 1);
  EXPECT_EQ(copies["shp-0"], 1) << "the failing request was not written: the error is injected";
  std::cout << duplicated << " of " << n << " records written twice (by both producers)\n";
}

// A router stopped while its producer still has a record in flight lets the actor system shut
// down: the record's report, never called by the destroyed producer, must not hold the router
// alive (it did: the actor system's destructor waited forever, until ctest's timeout).
TEST_F(RetryRouter, StoppingWithARecordInFlightDoesNotKeepTheActorSystemWaiting) {
  cluster.create_topic("brew.shipments.dlq", 1);
  start();
  ASSERT_TRUE(dispatch(dlq_record(0, "shp-warm")));
  push_broker_error(api_produce, RD_KAFKA_RESP_ERR_NO_ERROR, 1000ms);  // answered late
  caf::anon_send(router, actors::route_atom::value,
                 std::vector<onward_record>{dlq_record(0, "shp-1")});
  ASSERT_TRUE(wait_until([&] { return broker_errors_left(api_produce) == 0; }, 10s))
      << "the record never reached the broker";
  caf::anon_send_exit(router, caf::exit_reason::user_shutdown);
  router = caf::actor{};
  const auto before = std::chrono::steady_clock::now();
  sys.reset();  // waits for every actor, the router too
  EXPECT_LT(std::chrono::steady_clock::now() - before, 10s);
}

}  // namespace
}  // namespace courier::testing
