// Partitions added to a source topic on a real broker: `topics ensure` grows the tiers and the
// DLQ to the source's count and returns only once the metadata shows them, and a running
// courier picks the new partitions up with its default metadata refresh and commits them.

#include <gtest/gtest.h>

#include "core/kafka/admin.hpp"
#include "core/retry/retry_tiers.hpp"
#include "tests/e2e/e2e_support.hpp"

namespace courier::e2e {
namespace {

TEST(EndToEnd, AddedSourcePartitionsAreDeliveredAndCommittedAndTopicsEnsureGrowsTiersAndDlq) {
  const temp_dir scratch{"e2e-partitions", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  courier_settings s{unique_name("partitions-group"), unique_name("partitions"), "", 64, 100};
  create_topic(s.topic, 2);
  seed(s.topic, 0, 100);
  webhook w{dir, 0};
  s.url = w.url();
  const auto config = prepare(s, dir);
  const std::string bootstrap = kafka_environment::bootstrap();
  const std::string dlq = default_dlq_topic(s.topic);
  EXPECT_EQ(kafka::partition_count(bootstrap, dlq, 10s), 2);
  auto courier = start_courier(config, dir, "courier");
  ASSERT_TRUE(wait_delivered(w, 100, 60s, {courier.get()})) << w.stats().raw;

  kafka::create_partitions(bootstrap, s.topic, 4, 30s);
  ensure_topics(config, dir);
  // No wait here: ensure returned only once every topic showed its partitions.
  EXPECT_EQ(kafka::partition_count(bootstrap, dlq, 10s), 4);
  for (const auto delay : s.retry_tiers) {
    EXPECT_EQ(kafka::partition_count(bootstrap, tier_topic(s.topic, delay), 10s), 4);
  }

  seed(s.topic, 100, 300);  // keyed: the partitioner spreads them over all four partitions
  ASSERT_TRUE(wait_delivered(w, 400, 90s, {courier.get()})) << w.stats().raw << "\n"
                                                            << tail(courier->log());
  const auto code = terminate(*courier);
  ASSERT_TRUE(code.has_value()) << tail(courier->log());
  EXPECT_EQ(*code, 0) << tail(courier->log());
  const auto committed = kafka::committed_offsets(bootstrap, s.group, s.topic, 4, 15s);
  for (const std::int32_t added : {2, 3}) {
    ASSERT_EQ(committed.count(added), 1U) << "the added partition " << added << " committed";
    EXPECT_GT(committed.at(added), 0);
  }
  EXPECT_EQ(committed_total(s.group, s.topic, 4), 400);
  expect_accounting(w, 400);
}

}  // namespace
}  // namespace courier::e2e
