#include "core/redrive/redrive_headers.hpp"

#include "core/retry/retry_headers.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace courier::redrive {
namespace {

TEST(RedriveHeaders, DropCouriersProvenanceKeepTheKeyAndTheRestAndAddRedriveHeaders) {
  const header_list dlq{{"content-type", "application/json"},
                        {"courier.idempotency.key", "brew.shipments.v1:0:7"},
                        {"courier.origin.topic", "brew.shipments.v1"},
                        {"courier.attempts", "4"},
                        {"courier.retry.tier", "2"},
                        {"courier.retry.due", "123"},
                        {"courier.error.class", "http_503"},
                        {"courier.error.trace", "x"},
                        {"courier.followers", "8,9"},
                        {"courier.last.failure", "5"},
                        {"courier.redrive.count", "1"},
                        {"courier.correlation.id", "c-1"},
                        {"courier.redrive.from", "old:0:0"}};
  const header_list out = redrive_headers(dlq, 1, 1000, "brew.shipments.dlq:0:42");
  const header_list expected{
      {"content-type", "application/json"}, {"courier.idempotency.key", "brew.shipments.v1:0:7"},
      {"courier.correlation.id", "c-1"},    {"courier.redrive.count", "2"},
      {"courier.redrive.at", "1000"},       {"courier.redrive.from", "brew.shipments.dlq:0:42"}};
  EXPECT_EQ(out, expected);
}

TEST(RedriveHeaders, LoopGuardRefusesAtTheLimitUnlessForced) {
  EXPECT_EQ(loop_guard(0, 3, false), guard_verdict::allowed);
  EXPECT_EQ(loop_guard(2, 3, false), guard_verdict::allowed);
  EXPECT_EQ(loop_guard(3, 3, false), guard_verdict::refused);
  EXPECT_EQ(loop_guard(7, 3, false), guard_verdict::refused);
  EXPECT_EQ(loop_guard(3, 3, true), guard_verdict::forced);
}

TEST(RedriveHeaders, TheCountSaturatesInsteadOfOverflowing) {
  constexpr int most = std::numeric_limits<int>::max();
  EXPECT_EQ(next_redrive_count(0), 1);
  EXPECT_EQ(next_redrive_count(most - 1), most);
  EXPECT_EQ(next_redrive_count(most), most);
  EXPECT_EQ(next_redrive_count(-5), 1) << "never written by courier: counted from zero";
  const header_list out = redrive_headers({{"courier.redrive.count", "2147483647"}}, most, 1000,
                                          "brew.shipments.dlq:0:42");
  EXPECT_EQ(find_header(out, "courier.redrive.count"), "2147483647");
}

TEST(RedriveHeaders, AHugeCountReadsAsTheLargestAndAMalformedOneAsNothing) {
  constexpr int most = std::numeric_limits<int>::max();
  EXPECT_EQ(parse_redrive_count("0"), 0);
  EXPECT_EQ(parse_redrive_count("3"), 3);
  EXPECT_EQ(parse_redrive_count("0007"), 7);
  EXPECT_EQ(parse_redrive_count("2147483647"), most);
  EXPECT_EQ(parse_redrive_count("2147483648"), most);
  EXPECT_EQ(parse_redrive_count("99999999999999999999999999999999999999"), most);
  EXPECT_EQ(parse_redrive_count(""), std::nullopt);
  EXPECT_EQ(parse_redrive_count("-1"), std::nullopt);
  EXPECT_EQ(parse_redrive_count("+1"), std::nullopt);
  EXPECT_EQ(parse_redrive_count("1 "), std::nullopt);
  EXPECT_EQ(parse_redrive_count("x"), std::nullopt);
  // Read back at INT_MAX, the loop guard refuses it unless forced.
  EXPECT_EQ(loop_guard(*parse_redrive_count("99999999999"), 3, false), guard_verdict::refused);
}

}  // namespace
}  // namespace courier::redrive
