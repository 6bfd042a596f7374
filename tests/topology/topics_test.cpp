#include "topology/topics.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/retry/header_value.hpp"
#include "core/retry/retry_headers.hpp"

namespace courier::topology {
namespace {

using ::testing::HasSubstr;

// Bytes of a zigzag varint (Kafka's record v2 encoding of lengths).
std::int64_t varint_bytes(std::int64_t n) {
  auto z = static_cast<std::uint64_t>((n << 1) ^ (n >> 63));
  std::int64_t bytes = 1;
  while (z >= 0x80) {
    z >>= 7;
    ++bytes;
  }
  return bytes;
}

// The record v2 encoding of a header list: its count, then each name and value with lengths.
std::int64_t encoded_size(const header_list& headers) {
  std::int64_t bytes = varint_bytes(static_cast<std::int64_t>(headers.size()));
  for (const auto& [name, value] : headers) {
    bytes += varint_bytes(static_cast<std::int64_t>(name.size())) +
             static_cast<std::int64_t>(name.size()) +
             varint_bytes(static_cast<std::int64_t>(value.size())) +
             static_cast<std::int64_t>(value.size());
  }
  return bytes;
}

// Everything as long as it can be: a 249-byte topic name (Kafka's limit), extreme numbers,
// texts far over the cap (multi-byte UTF-8), a trace of many long entries.
record worst_source_record() {
  record r;
  r.topic = std::string(249, 't');
  r.partition = std::numeric_limits<std::int32_t>::max();
  r.offset = std::numeric_limits<std::int64_t>::max();
  r.timestamp_ms = std::numeric_limits<std::int64_t>::min();
  r.key = "k";
  r.value = std::string(1000, 'v');
  r.headers = {{"app.header", "x"}};
  return r;
}

failure_info worst_failure() {
  failure_info f;
  f.error_class = std::string(5000, 'c');
  f.error_message = std::string(3000, 'm') + "\xE2\x82\xAC";
  f.status = std::numeric_limits<int>::min();
  f.response_excerpt = std::string(4000, 'r');
  for (int i = 0; i < 50; ++i) {
    f.trace.push_back(std::string(2000, 'e'));
  }
  f.attempts = std::numeric_limits<int>::max();
  f.failed_at_ms = std::numeric_limits<std::int64_t>::min();
  return f;
}

destination tier_destination() {
  destination d;
  d.what = destination::kind::tier;
  d.tier_index = std::numeric_limits<int>::max();
  d.delay = std::chrono::milliseconds{std::numeric_limits<std::int32_t>::max()};
  return d;
}

// A copy for one endpoint of a route with several carries courier.endpoint (a name of at most 64
// bytes, core/routing/endpoint_fanout) before it moves on: the growth counts it too.
header_list worst_tier_headers() {
  record copy = worst_source_record();
  copy.headers.emplace_back(std::string{endpoint_header}, std::string(64, 'n'));
  return retry_headers(copy, std::string(3000, 'o'), tier_destination(), worst_failure(),
                       std::numeric_limits<std::int32_t>::max());
}

TEST(TopicsHeaderAllowance, CountsExactlyTheHeadersRetryHeadersWrites) {
  std::set<std::string> written;
  for (const auto& [name, value] : worst_tier_headers()) {
    if (name.rfind("courier.", 0) == 0) {
      written.insert(name);
    }
  }
  std::set<std::string> counted;
  for (const auto name : courier_header_names()) {
    counted.emplace(name);
  }
  EXPECT_EQ(written, counted);
}

TEST(TopicsHeaderAllowance, EveryValueOfAWorstCaseRecordIsWithinTheCap) {
  std::size_t longest = 0;
  for (const auto& [name, value] : worst_tier_headers()) {
    if (name.rfind("courier.", 0) == 0) {
      EXPECT_LE(value.size(), max_header_value) << name;
      longest = std::max(longest, value.size());
    }
  }
  // The inputs are long enough to reach the cap (a cut value ends in a 3-byte "…").
  EXPECT_GE(longest, max_header_value - 3);
}

TEST(TopicsHeaderAllowance, BoundsTheGrowthOfAWorstCaseTierRecord) {
  const record r = worst_source_record();
  EXPECT_LE(encoded_size(worst_tier_headers()) - encoded_size(r.headers),
            courier_header_allowance());
}

TEST(TopicsHeaderAllowance, BoundsTheGrowthOfATierRecordMovingToTheDlq) {
  // A record that went through a tier already carries courier's headers with short values;
  // moving it on replaces them with full ones.
  const record source = worst_source_record();
  failure_info small;
  small.error_class = "http_503";
  small.error_message = "x";
  small.attempts = 1;
  small.trace = {"t"};
  record from_tier = source;
  from_tier.headers = retry_headers(source, "r", tier_destination(), small, 0);
  destination dlq;
  dlq.what = destination::kind::dlq;
  const auto out = retry_headers(from_tier, std::string(3000, 'o'), dlq, worst_failure(),
                                 std::numeric_limits<std::int32_t>::max());
  EXPECT_LE(encoded_size(out) - encoded_size(from_tier.headers), courier_header_allowance());
  EXPECT_LE(encoded_size(out) - encoded_size(source.headers), courier_header_allowance());
}

TEST(TopicsSizeLines, SayWhatHappenedPerTopicAndTheProducersFigure) {
  ensure_report report;
  report.sizes.push_back({"orders.retry-5s",
                          "orders",
                          topic_size::kind::created,
                          2'018'978,
                          2'018'978,
                          2'018'978,
                          {}});
  report.sizes.push_back({"orders.dlq",
                          "orders",
                          topic_size::kind::raised,
                          100'000,
                          2'018'978,
                          2'018'978,
                          {"retention.ms=86400000"}});
  report.sizes.push_back(
      {"other.dlq", "other", topic_size::kind::fits, 5'000'000, 5'000'000, 1'067'566, {}});
  const auto lines = size_lines(report);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_THAT(lines[0], HasSubstr("sized    orders.retry-5s max.message.bytes=2018978"));
  EXPECT_THAT(lines[0], HasSubstr("needs 2018978: orders's max.message.bytes + 18978"));
  EXPECT_THAT(lines[1], HasSubstr("raised   orders.dlq max.message.bytes 100000 -> 2018978"));
  EXPECT_THAT(lines[1], HasSubstr("other overrides kept: retention.ms=86400000"));
  EXPECT_THAT(lines[2], HasSubstr("fits     other.dlq max.message.bytes=5000000"));
}

}  // namespace
}  // namespace courier::topology
