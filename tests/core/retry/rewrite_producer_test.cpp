#include "core/retry/rewrite_producer.hpp"

#include "core/retry/header_allowance.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace courier {
namespace {

using properties = std::map<std::string, std::string>;

TEST(RewriteProducer, TakesWhatTheConsumerCanBeHandedWithCouriersHeaders) {
  EXPECT_EQ(rewrite_message_max_bytes(librdkafka_default_receive_message_max_bytes),
            100'000'000 + courier_header_allowance());
  EXPECT_EQ(rewrite_message_max_bytes(5'000'000), 5'018'978);
  EXPECT_EQ(rewrite_message_max_bytes(999'999'999), librdkafka_max_message_max_bytes);
  EXPECT_EQ(rewrite_message_max_bytes(-1), courier_header_allowance());
}

TEST(RewriteProducer, WithNothingSetItTakesLibrdkafkasReceiveLimitAndCompresses) {
  const auto p = rewrite_producer_properties({{"socket.timeout.ms", "9000"}});
  EXPECT_EQ(p, (properties{{"socket.timeout.ms", "9000"},
                           {"message.max.bytes", "100018978"},
                           {"compression.type", "zstd"}}));
}

TEST(RewriteProducer, FollowsTheConsumersReceiveLimit) {
  const auto p = rewrite_producer_properties({{"receive.message.max.bytes", "200000000"}});
  EXPECT_EQ(p.at("message.max.bytes"), "200018978");
  EXPECT_EQ(p.at("receive.message.max.bytes"), "200000000");
}

TEST(RewriteProducer, ALargerMessageMaxBytesSetByTheUserStays) {
  EXPECT_EQ(
      rewrite_producer_properties({{"message.max.bytes", "300000000"}}).at("message.max.bytes"),
      "300000000");
  EXPECT_EQ(rewrite_producer_properties({{"message.max.bytes", "2000000"}}).at("message.max.bytes"),
            "100018978");
}

TEST(RewriteProducer, ACompressionTheUserChoseStays) {
  EXPECT_EQ(rewrite_producer_properties({{"compression.type", "lz4"}}).at("compression.type"),
            "lz4");
  EXPECT_EQ(rewrite_producer_properties({{"compression.type", "none"}}).at("compression.type"),
            "none");
  const auto codec = rewrite_producer_properties({{"compression.codec", "gzip"}});
  EXPECT_EQ(codec.count("compression.type"), 0U);
  EXPECT_EQ(codec.at("compression.codec"), "gzip");
}

TEST(RewriteProducer, AReceiveLimitThatIsNotANumberCountsAsLibrdkafkasDefault) {
  // librdkafka refuses it by name when the consumer is made; the producer is not the one to say.
  EXPECT_EQ(
      rewrite_producer_properties({{"receive.message.max.bytes", "lots"}}).at("message.max.bytes"),
      "100018978");
}

}  // namespace
}  // namespace courier
