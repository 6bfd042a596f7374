#include "core/time/civil_date.hpp"

#include <gtest/gtest.h>

namespace courier {
namespace {

TEST(CivilDate, TheEpochIsDayZero) {
  EXPECT_EQ(days_from_civil({1970, 1, 1}), 0);
  const auto d = civil_from_days(0);
  EXPECT_EQ(d.year, 1970);
  EXPECT_EQ(d.month, 1U);
  EXPECT_EQ(d.day, 1U);
}

TEST(CivilDate, KnownDatesOnBothSidesOfTheEpoch) {
  EXPECT_EQ(days_from_civil({2000, 3, 1}), 11'017);
  EXPECT_EQ(days_from_civil({1969, 12, 31}), -1);
  EXPECT_EQ(days_from_civil({1994, 11, 6}), 9'075);  // RFC 9110's example HTTP-date
  EXPECT_EQ(days_from_civil({2026, 12, 1}), 20'788);
}

TEST(CivilDate, ConvertsBackAndForthForEveryDayOfFourCenturies) {
  for (std::int64_t days = -146'097; days <= 146'097; ++days) {
    const auto date = civil_from_days(days);
    ASSERT_GE(date.month, 1U);
    ASSERT_LE(date.month, 12U);
    ASSERT_GE(date.day, 1U);
    ASSERT_LE(date.day, days_in_month(date.year, date.month));
    ASSERT_EQ(days_from_civil(date), days) << date.year << "-" << date.month << "-" << date.day;
  }
}

TEST(CivilDate, LeapYearsFollowTheGregorianRules) {
  EXPECT_TRUE(is_leap_year(2024));
  EXPECT_FALSE(is_leap_year(2026));
  EXPECT_FALSE(is_leap_year(1900));
  EXPECT_TRUE(is_leap_year(2000));
  EXPECT_EQ(days_in_month(2024, 2), 29U);
  EXPECT_EQ(days_in_month(2026, 2), 28U);
  EXPECT_EQ(days_in_month(2026, 12), 31U);
  EXPECT_EQ(days_in_month(2026, 4), 30U);
}

TEST(Rfc3339, FormatsUnixMillisecondsInUtc) {
  EXPECT_EQ(format_rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_rfc3339_ms(1'796'141'107'123), "2026-12-01T16:05:07.123Z");
  EXPECT_EQ(format_rfc3339_ms(951'782'400'000), "2000-02-29T00:00:00.000Z");
  EXPECT_EQ(format_rfc3339_ms(-1), "1969-12-31T23:59:59.999Z");
}

}  // namespace
}  // namespace courier
