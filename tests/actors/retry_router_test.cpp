// The retry router against librdkafka's mock cluster (label integration): it answers only on
// the broker's acknowledgement, and a destination with fewer partitions than the source does
// not make a produce fail forever.

#include "actors/retry_router.hpp"

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "actors/messages.hpp"
#include "core/kafka_mock/mock_cluster.hpp"
#include "demo/topic_reader.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

actors::dispatch_request dlq_record(std::int32_t partition, const std::string& key) {
  actors::dispatch_request req;
  req.topic = "brew.shipments.dlq";
  req.partition = partition;
  req.has_key = true;
  req.key = key;
  req.value = R"({"shipment_id":")" + key + R"("})";
  req.headers = {
      {"courier.idempotency.key", "brew.shipments.v1:" + std::to_string(partition) + ":0"}};
  return req;
}

struct RetryRouter : ::testing::Test {
  RetryRouter() {
    actors::add_message_types(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
  }
  ~RetryRouter() override { caf::anon_send_exit(router, caf::exit_reason::user_shutdown); }
  void start() {
    router = sys->spawn<caf::detached>(actors::retry_router, cluster.bootstrap_servers(),
                                       std::map<std::string, std::string>{});
  }
  // The router's answer to one dispatch request: true once acknowledged.
  bool dispatch(actors::dispatch_request req) {
    caf::scoped_actor self{*sys};
    bool acked = false;
    self->request(router, std::chrono::seconds{30}, actors::route_atom::value, std::move(req))
        .receive([&](bool ok) { acked = ok; },
                 [&](const caf::error& e) { ADD_FAILURE() << caf::to_string(e); });
    return acked;
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

}  // namespace
}  // namespace courier::testing
