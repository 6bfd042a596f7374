#include "tools/redrive/producer_properties.hpp"

#include <gtest/gtest.h>

namespace courier::redrive {
namespace {

using namespace std::chrono_literals;

// A DLQ sized for a 2,000,000-byte source holds records over librdkafka's default of
// 1,000,000: a producer left at the default failed every run at the first of them.
TEST(ProducerProperties, TakeTheDlqsRecordsWithRoomForCouriersHeaders) {
  const auto properties = redrive_producer_properties(2'000'000, 10s);
  ASSERT_EQ(properties.count("message.max.bytes"), 1U);
  EXPECT_EQ(properties.at("message.max.bytes"), "2017928");  // + courier_header_allowance()
  EXPECT_EQ(properties.at("log_level"), "0");
}

TEST(ProducerProperties, NeverGoBelowLibrdkafkasDefault) {
  EXPECT_EQ(redrive_producer_properties(100'000, 10s).at("message.max.bytes"), "1000000");
}

TEST(ProducerProperties, KeepLibrdkafkasDefaultWhenTheDlqsSizeIsUnknown) {
  const auto properties = redrive_producer_properties(std::nullopt, 10s);
  EXPECT_EQ(properties.count("message.max.bytes"), 0U);
  EXPECT_EQ(properties.at("log_level"), "0");
}

// A killed run's open transaction pins the target partitions' last stable offset until the
// broker aborts it: librdkafka's default would be 60 s.
TEST(ProducerProperties, BoundTheTransactionByTwiceTheTimeout) {
  EXPECT_EQ(redrive_producer_properties(std::nullopt, 10s).at("transaction.timeout.ms"), "20000");
  EXPECT_EQ(redrive_producer_properties(std::nullopt, 200ms).at("transaction.timeout.ms"), "1000");
}

}  // namespace
}  // namespace courier::redrive
