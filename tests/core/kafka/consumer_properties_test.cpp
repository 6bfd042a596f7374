// The librdkafka properties a consumer is made with: courier's defaults, the config's overrides,
// and the group's debug lines the join state is read from. No client is created.

#include "core/kafka/consumer_properties.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace courier::kafka {
namespace {

consumer_settings with_extra(std::map<std::string, std::string> extra) {
  return consumer_settings{"broker:9092", "couriers", {"orders"}, std::move(extra), {}};
}

TEST(ConsumerProperties, CourierCommitsItselfFromTheEarliestOffsetWithCooperativeRebalances) {
  const auto p = consumer_properties(with_extra({}));
  EXPECT_EQ(p.at("bootstrap.servers"), "broker:9092");
  EXPECT_EQ(p.at("group.id"), "couriers");
  EXPECT_EQ(p.at("enable.auto.commit"), "false");
  EXPECT_EQ(p.at("enable.auto.offset.store"), "false");
  EXPECT_EQ(p.at("auto.offset.reset"), "earliest");
  EXPECT_EQ(p.at("partition.assignment.strategy"), "cooperative-sticky");
  EXPECT_EQ(p.at("session.timeout.ms"), "6000");
  EXPECT_EQ(p.at("statistics.interval.ms"), "5000");
  EXPECT_EQ(p.at("queued.max.messages.kbytes"), "32768");
  EXPECT_EQ(p.at("fetch.max.bytes"), "8388608");
}

TEST(ConsumerProperties, TheConfigsPropertiesWinOverTheDefaults) {
  const auto p =
      consumer_properties(with_extra({{"partition.assignment.strategy", "range,roundrobin"},
                                      {"queued.max.messages.kbytes", "4096"}}));
  EXPECT_EQ(p.at("partition.assignment.strategy"), "range,roundrobin");
  EXPECT_EQ(p.at("queued.max.messages.kbytes"), "4096");
  EXPECT_EQ(with_extra({{"queued.max.messages.kbytes", "4096"}}).queued_max_messages_kbytes(),
            "4096");
  EXPECT_EQ(with_extra({}).queued_max_messages_kbytes(), "32768");
}

TEST(ConsumerProperties, TheFetchBoundMakesRoomForTheLargestMessage) {
  EXPECT_EQ(
      consumer_properties(with_extra({{"message.max.bytes", "10000000"}})).at("fetch.max.bytes"),
      "10000000");
  EXPECT_EQ(consumer_properties(with_extra({{"message.max.bytes", "not a number"}}))
                .at("fetch.max.bytes"),
            "8388608");
  EXPECT_EQ(consumer_properties(with_extra({{"fetch.max.bytes", "2097152"}})).at("fetch.max.bytes"),
            "2097152");
}

TEST(ConsumerProperties, AProducersPropertyIsLeftToTheProducer) {
  const auto p = consumer_properties(with_extra({{"acks", "all"}, {"linger.ms", "5"}}));
  EXPECT_EQ(p.count("acks"), 0U);
  EXPECT_EQ(p.count("linger.ms"), 0U);
}

TEST(ConsumerProperties, TheGroupsDebugLinesAreAlwaysAskedFor) {
  EXPECT_EQ(consumer_properties(with_extra({})).at("debug"), "cgrp");
  EXPECT_EQ(consumer_properties(with_extra({{"debug", "broker"}})).at("debug"), "broker,cgrp");
  EXPECT_EQ(consumer_properties(with_extra({{"debug", "cgrp,fetch"}})).at("debug"), "cgrp,fetch");
  EXPECT_EQ(consumer_properties(with_extra({{"debug", "all"}})).at("debug"), "all");
}

}  // namespace
}  // namespace courier::kafka
