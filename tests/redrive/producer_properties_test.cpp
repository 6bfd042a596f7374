#include "tools/redrive/producer_properties.hpp"

#include <gtest/gtest.h>

namespace courier::redrive {
namespace {

// A DLQ sized for a 2,000,000-byte source holds records over librdkafka's default of
// 1,000,000: a producer left at the default failed every run at the first of them.
TEST(ProducerProperties, TakeTheDlqsRecordsWithRoomForCouriersHeaders) {
  const auto properties = redrive_producer_properties(2'000'000);
  ASSERT_EQ(properties.count("message.max.bytes"), 1U);
  EXPECT_EQ(properties.at("message.max.bytes"), "2017928");  // + courier_header_allowance()
  EXPECT_EQ(properties.at("log_level"), "0");
}

TEST(ProducerProperties, NeverGoBelowLibrdkafkasDefault) {
  EXPECT_EQ(redrive_producer_properties(100'000).at("message.max.bytes"), "1000000");
}

TEST(ProducerProperties, KeepLibrdkafkasDefaultWhenTheDlqsSizeIsUnknown) {
  const auto properties = redrive_producer_properties(std::nullopt);
  EXPECT_EQ(properties.count("message.max.bytes"), 0U);
  EXPECT_EQ(properties.at("log_level"), "0");
}

}  // namespace
}  // namespace courier::redrive
