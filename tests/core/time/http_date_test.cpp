#include "core/time/http_date.hpp"
#include "tests/support/http_dates.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>

namespace courier {
namespace {

using std::chrono::seconds;
using time_point = std::chrono::system_clock::time_point;

using courier::testing::mid_2024;
using courier::testing::rfc_example;
using courier::testing::ten_seconds_before;

sys_seconds at(std::int64_t epoch_seconds) { return sys_seconds{seconds{epoch_seconds}}; }

TEST(HttpDate, ReadsImfFixdate) {
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", mid_2024), rfc_example);
}

TEST(HttpDate, ReadsRfc850Date) {
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", ten_seconds_before), rfc_example);
}

TEST(HttpDate, ReadsAsctimeDateWithASpacePaddedOrTwoDigitDay) {
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994", mid_2024), rfc_example);
  EXPECT_EQ(parse_http_date("Sun Nov 06 08:49:37 1994", mid_2024), rfc_example);
}

TEST(HttpDate, ReadsLeapDays) {
  const time_point now{seconds{1709164800 - 60}};
  EXPECT_EQ(parse_http_date("Thu, 29 Feb 2024 00:00:00 GMT", now), at(1709164800));
  EXPECT_EQ(parse_http_date("Wed, 29 Feb 2023 00:00:00 GMT", now), std::nullopt);
}

TEST(HttpDate, PutsALeapSecondOnTheNextMinute) {
  EXPECT_EQ(parse_http_date("Sat, 31 Dec 2016 23:59:60 GMT", mid_2024), at(1483228800));
}

TEST(HttpDate, RejectsImpossibleDatesAndTimes) {
  for (const char* value : {
           "Sun, 31 Nov 1994 08:49:37 GMT",
           "Sun, 00 Nov 1994 08:49:37 GMT",
           "Sun, 06 Nov 1994 24:00:00 GMT",
           "Sun, 06 Nov 1994 08:60:00 GMT",
           "Sun, 06 Foo 1994 08:49:37 GMT",
       }) {
    EXPECT_EQ(parse_http_date(value, mid_2024), std::nullopt) << value;
  }
}

TEST(HttpDate, RejectsDatesWithAnotherZoneOrTrailingText) {
  for (const char* value : {
           "Sun, 06 Nov 1994 08:49:37 UTC",
           "Sun, 06 Nov 1994 08:49:37 GMT+1",
           "Sun, 6 Nov 1994 08:49:37 GMT",
           "Sunday, 06-Nov-94 08:49:37",
       }) {
    EXPECT_EQ(parse_http_date(value, ten_seconds_before), std::nullopt) << value;
  }
}

TEST(HttpDate, LeavesSurroundingWhitespaceToTheCaller) {
  EXPECT_EQ(parse_http_date(" Sun, 06 Nov 1994 08:49:37 GMT", mid_2024), std::nullopt);
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT ", mid_2024), std::nullopt);
}

TEST(HttpDate, PutsTwoDigitYearsAtMostFiftyYearsAhead) {
  // From mid 2024, "74" is 2074 (within 50 years) but "75" is 1975.
  EXPECT_EQ(parse_http_date("Monday, 01-Jan-74 00:00:00 GMT", mid_2024), at(3281990400LL));
  EXPECT_EQ(parse_http_date("Wednesday, 01-Jan-75 00:00:00 GMT", mid_2024), at(157766400LL));
}

TEST(HttpDate, ReadsTheLastFourDigitYear) {
  EXPECT_EQ(parse_http_date("Fri, 31 Dec 9999 23:59:59 GMT", mid_2024), at(253402300799LL));
}

}  // namespace
}  // namespace courier
