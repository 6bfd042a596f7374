#include "core/retry/header_allowance.hpp"

#include "core/retry/header_value.hpp"
#include "core/retry/retry_headers.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace courier {
namespace {

TEST(HeaderAllowance, IsTheArithmeticOfTheCodecsCaps) {
  // 18 headers (courier.endpoint among them): names 356 bytes, values 18 x 1024, two length
  // varints of at most 5 bytes per header, and 2 x 5 for the record's own length and header count.
  std::size_t name_bytes = 0;
  for (const auto name : courier_header_names()) {
    name_bytes += name.size();
  }
  EXPECT_EQ(courier_header_names().size(), 18U);
  EXPECT_EQ(name_bytes, 356U);
  EXPECT_EQ(max_header_value, 1024U);
  EXPECT_EQ(courier_header_allowance(), 356 + 18 * 1024 + 18 * 2 * 5 + 2 * 5);
  EXPECT_EQ(courier_header_allowance(), 18978);
  EXPECT_EQ(tier_max_message_bytes(2'000'000), 2'018'978);
  EXPECT_EQ(tier_max_message_bytes(1'048'588), 1'067'566);  // Kafka's default max.message.bytes
}

std::size_t encoded_header_bytes(const header_list& headers) {
  std::size_t bytes = 0;
  for (const auto& [name, value] : headers) {
    bytes += name.size() + value.size();
  }
  return bytes;
}

// A source record whose only header is a 900 KB binary courier.idempotency.key: its tier and
// DLQ records carry the key's digest form, so every header of them fits the allowance and the
// record is smaller than the source record, not 2.7 MB of percent-encoding.
TEST(HeaderAllowance, ARecordWithA900KbBinaryKeyMovesOnWithinTheAllowance) {
  record r;
  r.topic = "brew.shipments.v1";
  r.partition = 3;
  r.offset = 42;
  std::string blob(900 * 1024, '\0');
  for (std::size_t i = 0; i < blob.size(); ++i) {
    blob[i] = static_cast<char>(i * 131U);
  }
  r.headers.emplace_back(std::string{idempotency_key_header}, blob);
  failure_info f;
  f.error_class = "http_503";
  f.status = 503;
  f.attempts = 3;
  const auto topics = route_topics_named("brew.shipments.v1", {std::chrono::seconds{5}}, "");
  for (const auto& dest : {next_destination(-1, /*permanent=*/false, topics),
                           next_destination(-1, /*permanent=*/true, topics)}) {
    const auto headers = retry_headers(r, "shipments", dest, f, 1'000);
    EXPECT_LE(static_cast<std::int64_t>(encoded_header_bytes(headers)), courier_header_allowance());
    const auto key = find_header(headers, idempotency_key_header);
    ASSERT_TRUE(key);
    EXPECT_EQ(key->size(), digest_key_bytes);
    for (const auto& [name, value] : headers) {
      EXPECT_LE(value.size(), max_header_value) << name;
    }
    // The next hop reads the digest form and keeps it.
    record tier_copy = r;
    tier_copy.headers = headers;
    EXPECT_EQ(idempotency_key_for(tier_copy), *key);
  }
}

}  // namespace
}  // namespace courier
