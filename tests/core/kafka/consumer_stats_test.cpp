#include "core/kafka/consumer_stats.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

namespace courier::kafka {
namespace {

// Trimmed from a librdkafka 2.0.2 consumer's statistics (STATISTICS.md's field names).
constexpr const char* two_partitions = R"({
  "name": "rdkafka#consumer-1", "type": "consumer", "ts": 123,
  "topics": {
    "brew.shipments.v1": {
      "topic": "brew.shipments.v1",
      "partitions": {
        "0": {"partition": 0, "desired": true, "fetch_state": "active",
              "hi_offset": 1200, "committed_offset": 1000, "stored_offset": 1100,
              "consumer_lag": 200, "consumer_lag_stored": 100},
        "1": {"partition": 1, "desired": true, "fetch_state": "active",
              "hi_offset": 50, "committed_offset": -1001, "consumer_lag": -1},
        "2": {"partition": 2, "desired": false, "hi_offset": 9, "committed_offset": 9,
              "consumer_lag": 0},
        "-1": {"partition": -1, "desired": false, "hi_offset": -1}
      }
    }
  }
})";

TEST(ConsumerPositions, ReadsTheFetchedPartitionsOnly) {
  const auto ps = parse_consumer_positions(two_partitions);
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0].topic, "brew.shipments.v1");
  EXPECT_EQ(ps[0].partition, 0);
  EXPECT_EQ(ps[0].committed, 1000);
  EXPECT_EQ(ps[0].high_watermark, 1200);
  EXPECT_EQ(ps[0].lag, 200);
  EXPECT_EQ(ps[1].partition, 1);
  EXPECT_EQ(ps[1].committed, -1001);  // librdkafka's OFFSET_INVALID: nothing committed yet
  EXPECT_EQ(ps[1].lag, -1);
}

TEST(ConsumerPositions, MissingFieldsAreUnknown) {
  const auto ps = parse_consumer_positions(
      R"({"topics": {"t": {"partitions": {"3": {"partition": 3, "desired": true}}}}})");
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].committed, -1);
  EXPECT_EQ(ps[0].high_watermark, -1);
  EXPECT_EQ(ps[0].lag, -1);
}

TEST(ConsumerPositions, NoTopicsYetIsEmpty) {
  EXPECT_TRUE(parse_consumer_positions(R"({"type": "consumer"})").empty());
}

TEST(PausedPosition, TheBrokersHighWatermarkGivesTheLagFromTheCommitPoint) {
  const partition_position stale{"t", 0, 1000, 1200, 200};  // what the last fetch left
  const auto p = with_watermarks(stale, 0, 1500);
  EXPECT_EQ(p.high_watermark, 1500);
  EXPECT_EQ(p.committed, 1000);
  EXPECT_EQ(p.lag, 500);
}

TEST(PausedPosition, WithNothingCommittedTheLagCountsFromTheLowWatermark) {
  const partition_position never_fetched{"t", 1, -1001, -1, -1};
  const auto p = with_watermarks(never_fetched, 40, 140);
  EXPECT_EQ(p.high_watermark, 140);
  EXPECT_EQ(p.lag, 100) << "auto.offset.reset=earliest starts at the low watermark";
}

TEST(PausedPosition, AnUnknownHighWatermarkKeepsWhatTheStatisticsSaid) {
  const partition_position reported{"t", 2, 5, 9, 4};
  const auto p = with_watermarks(reported, -1, -1);
  EXPECT_EQ(p.high_watermark, 9);
  EXPECT_EQ(p.lag, 4);
  EXPECT_EQ(with_watermarks({"t", 3, 10, 10, 0}, 0, 8).lag, 0) << "never negative";
}

TEST(BrokerUp, AnyBrokerInStateUpIsReachable) {
  EXPECT_EQ(parse_broker_up(R"({"brokers": {"127.0.0.1:9092/bootstrap": {"state": "INIT"},
                                            "127.0.0.1:9092/1": {"state": "UP"}}})"),
            true);
  EXPECT_EQ(parse_broker_up(R"({"brokers": {"127.0.0.1:9092/1": {"state": "CONNECT"},
                                            "127.0.0.1:9093/2": {"state": "DOWN"}}})"),
            false);
  EXPECT_EQ(parse_broker_up(R"({"brokers": {}})"), std::nullopt);
  EXPECT_EQ(parse_broker_up(R"({"type": "consumer"})"), std::nullopt);
  EXPECT_THROW(parse_broker_up("nope"), std::invalid_argument);
}

TEST(ConsumerPositions, NotStatisticsJsonIsAnError) {
  EXPECT_THROW(parse_consumer_positions("not json"), std::invalid_argument);
  EXPECT_THROW(parse_consumer_positions("[1, 2]"), std::invalid_argument);
}

}  // namespace
}  // namespace courier::kafka
