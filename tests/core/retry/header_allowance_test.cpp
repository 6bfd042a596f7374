#include "core/retry/header_allowance.hpp"

#include "core/retry/header_value.hpp"

#include <gtest/gtest.h>

#include <cstddef>

namespace courier {
namespace {

TEST(HeaderAllowance, IsTheArithmeticOfTheCodecsCaps) {
  // 17 headers: names 340 bytes, values 17 x 1024, two length varints of at most 5 bytes per
  // header, and 2 x 5 for the record's own length and header count.
  std::size_t name_bytes = 0;
  for (const auto name : courier_header_names()) {
    name_bytes += name.size();
  }
  EXPECT_EQ(courier_header_names().size(), 17U);
  EXPECT_EQ(name_bytes, 340U);
  EXPECT_EQ(max_header_value, 1024U);
  EXPECT_EQ(courier_header_allowance(), 340 + 17 * 1024 + 17 * 2 * 5 + 2 * 5);
  EXPECT_EQ(courier_header_allowance(), 17928);
  EXPECT_EQ(tier_max_message_bytes(2'000'000), 2'017'928);
  EXPECT_EQ(tier_max_message_bytes(1'048'588), 1'066'516);  // Kafka's default max.message.bytes
}

}  // namespace
}  // namespace courier
