#include "core/time/civil_date.hpp"

#include <array>
#include <cstdio>

namespace courier {

// Both conversions count in 400-year eras of 146097 days starting on 0000-03-01, so a leap
// day is the last day of its year (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
std::int64_t days_from_civil(const civil_date& date) {
  const std::int64_t y = date.year - (date.month <= 2 ? 1 : 0);
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t m = date.month;
  const std::int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + date.day - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146'097 + doe - 719'468;
}

civil_date civil_from_days(std::int64_t days) {
  const std::int64_t z = days + 719'468;
  const std::int64_t era = (z >= 0 ? z : z - 146'096) / 146'097;
  const std::int64_t doe = z - era * 146'097;
  const std::int64_t yoe = (doe - doe / 1'460 + doe / 36'524 - doe / 146'096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  civil_date date;
  date.day = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  date.month = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  date.year = yoe + era * 400 + (date.month <= 2 ? 1 : 0);
  return date;
}

bool is_leap_year(std::int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

unsigned days_in_month(std::int64_t year, unsigned month) {
  constexpr std::array<unsigned, 12> days{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap_year(year) ? 29 : days.at(month - 1);
}

std::string format_rfc3339_ms(std::int64_t unix_ms) {
  constexpr std::int64_t ms_per_day = 86'400'000;
  std::int64_t days = unix_ms / ms_per_day;
  std::int64_t rest = unix_ms % ms_per_day;
  if (rest < 0) {
    rest += ms_per_day;
    --days;
  }
  const auto d = civil_from_days(days);
  std::array<char, 40> buf{};
  const auto seconds = rest / 1000;
  std::snprintf(buf.data(), buf.size(), "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ",
                static_cast<long long>(d.year), d.month, d.day,
                static_cast<long long>(seconds / 3600), static_cast<long long>(seconds / 60 % 60),
                static_cast<long long>(seconds % 60), static_cast<long long>(rest % 1000));
  return buf.data();
}

}  // namespace courier
