#pragma once

#include <cstdint>
#include <string>

namespace courier {

// A date of the proleptic Gregorian calendar, in UTC, with no time zone or locale behind it.
struct civil_date {
  std::int64_t year = 1970;
  unsigned month = 1;  // 1..12
  unsigned day = 1;    // 1..31
};

// Days since 1970-01-01 (Howard Hinnant's days_from_civil); negative before it. Expects a
// valid date (see days_in_month).
std::int64_t days_from_civil(const civil_date& date);

// The date `days` days after 1970-01-01 (the inverse of days_from_civil).
civil_date civil_from_days(std::int64_t days);

bool is_leap_year(std::int64_t year);

// 28..31 for month 1..12 of `year`.
unsigned days_in_month(std::int64_t year, unsigned month);

// RFC 3339 in UTC with milliseconds, "2026-12-01T16:05:07.123Z", of a Unix time in ms.
std::string format_rfc3339_ms(std::int64_t unix_ms);

}  // namespace courier
