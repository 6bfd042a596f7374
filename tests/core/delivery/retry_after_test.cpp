#include "core/delivery/retry_after.hpp"
#include "tests/support/http_dates.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>

namespace courier {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using time_point = std::chrono::system_clock::time_point;

using courier::testing::mid_2024;
using courier::testing::rfc_example;
using courier::testing::ten_seconds_before;

TEST(RetryAfter, ReadsDeltaSeconds) {
  EXPECT_EQ(parse_retry_after("120", mid_2024), milliseconds{120000});
  EXPECT_EQ(parse_retry_after("1", mid_2024), milliseconds{1000});
}

TEST(RetryAfter, ReadsZeroSecondsAsNoWait) {
  EXPECT_EQ(parse_retry_after("0", mid_2024), milliseconds{0});
}

TEST(RetryAfter, TrimsSurroundingWhitespace) {
  EXPECT_EQ(parse_retry_after("  7\t", mid_2024), milliseconds{7000});
  EXPECT_EQ(parse_retry_after(" Sun, 06 Nov 1994 08:49:37 GMT ", ten_seconds_before),
            milliseconds{10000});
}

TEST(RetryAfter, SaturatesHugeDeltaSecondsInsteadOfOverflowing) {
  const auto v = parse_retry_after("99999999999999999999999999", mid_2024);
  ASSERT_TRUE(v.has_value());
  EXPECT_GT(*v, milliseconds{0});
  EXPECT_GE(*v, parse_retry_after("9999999999", mid_2024).value());
}

TEST(RetryAfter, RejectsSignedFractionalAndSuffixedNumbers) {
  for (const char* value : {"-5", "+5", "1.5", "5s", "5 5"}) {
    EXPECT_EQ(parse_retry_after(value, mid_2024), std::nullopt) << value;
  }
}

TEST(RetryAfter, RejectsEmptyAndGarbage) {
  for (const char* value : {"", "   ", "soon", "Sun, 06 Nov 1994"}) {
    EXPECT_EQ(parse_retry_after(value, mid_2024), std::nullopt) << value;
  }
}

TEST(RetryAfter, ReadsImfFixdateRelativeToNow) {
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", ten_seconds_before),
            milliseconds{10000});
}

TEST(RetryAfter, ReadsRfc850DateRelativeToNow) {
  EXPECT_EQ(parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", ten_seconds_before),
            milliseconds{10000});
}

TEST(RetryAfter, ReadsAsctimeDateRelativeToNow) {
  EXPECT_EQ(parse_retry_after("Sun Nov  6 08:49:37 1994", ten_seconds_before), milliseconds{10000});
  EXPECT_EQ(parse_retry_after("Sun Nov 06 08:49:37 1994", ten_seconds_before), milliseconds{10000});
}

TEST(RetryAfter, RoundsASubSecondWaitUpSoItNeverWakesEarly) {
  const time_point now = rfc_example - std::chrono::microseconds{1499700};
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now), milliseconds{1500});
}

TEST(RetryAfter, ReadsADateInThePastAsNoWait) {
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", mid_2024), milliseconds{0});
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", rfc_example), milliseconds{0});
}

TEST(RetryAfter, HandlesTheLastFourDigitYearWithoutOverflow) {
  const auto far = parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", mid_2024);
  ASSERT_TRUE(far.has_value());
  EXPECT_GT(*far, milliseconds{seconds{3281990400LL - 1717200000LL}});
}

}  // namespace
}  // namespace courier
