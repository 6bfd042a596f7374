#include "core/redrive/producer_properties.hpp"

#include "core/retry/rewrite_producer.hpp"

#include <gtest/gtest.h>

namespace courier::redrive {
namespace {

using namespace std::chrono_literals;

// A DLQ record that came compressed may be larger than every topic's limit uncompressed: the
// producer takes what its reader can be handed (librdkafka's receive.message.max.bytes plus
// courier's headers) and compresses it again. Sized by the DLQ's max.message.bytes it refused
// such a record before sending anything, and the run failed at it every time.
TEST(ProducerProperties, TakeWhatTheReaderCanBeHandedAndCompressIt) {
  const auto properties = redrive_producer_properties(10s);
  EXPECT_EQ(
      properties.at("message.max.bytes"),
      std::to_string(rewrite_message_max_bytes(librdkafka_default_receive_message_max_bytes)));
  EXPECT_EQ(properties.at("compression.type"), "zstd");
  EXPECT_EQ(properties.at("log_level"), "0");
}

// A killed run's open transaction pins the target partitions' last stable offset until the
// broker aborts it: librdkafka's default would be 60 s.
TEST(ProducerProperties, BoundTheTransactionByTwiceTheTimeout) {
  EXPECT_EQ(redrive_producer_properties(10s).at("transaction.timeout.ms"), "20000");
  EXPECT_EQ(redrive_producer_properties(200ms).at("transaction.timeout.ms"), "1000");
}

}  // namespace
}  // namespace courier::redrive
