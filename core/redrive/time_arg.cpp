#include "core/redrive/time_arg.hpp"

#include "core/time/civil_date.hpp"
#include "core/time/duration.hpp"
#include "core/retry/retry_headers.hpp"  // format_trace_entry

#include <charconv>
#include <limits>

namespace courier::redrive {
namespace {

constexpr std::int64_t ms_per_day = 86'400'000;

// Exactly `width` digits at text[pos]; nothing otherwise.
std::optional<int> digits(std::string_view text, std::size_t pos, std::size_t width) {
  if (pos + width > text.size()) {
    return std::nullopt;
  }
  int value = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') {
      return std::nullopt;
    }
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

std::optional<std::int64_t> parse_iso_utc(std::string_view t) {
  // YYYY-MM-DDTHH:MM:SS[.fff]Z
  if (t.size() < 20 || t[4] != '-' || t[7] != '-' || (t[10] != 'T' && t[10] != 't') ||
      t[13] != ':' || t[16] != ':') {
    return std::nullopt;
  }
  const auto year = digits(t, 0, 4);
  const auto month = digits(t, 5, 2);
  const auto day = digits(t, 8, 2);
  const auto hour = digits(t, 11, 2);
  const auto minute = digits(t, 14, 2);
  const auto second = digits(t, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || *month < 1 || *month > 12 ||
      *day < 1 || *day > static_cast<int>(days_in_month(*year, static_cast<unsigned>(*month))) ||
      *hour > 23 || *minute > 59 || *second > 59) {
    return std::nullopt;
  }
  std::size_t pos = 19;
  int millis = 0;
  if (t[pos] == '.') {
    const auto frac = digits(t, pos + 1, 3);
    if (!frac) {
      return std::nullopt;
    }
    millis = *frac;
    pos += 4;
  }
  if (pos + 1 != t.size() || (t[pos] != 'Z' && t[pos] != 'z')) {
    return std::nullopt;
  }
  return days_from_civil({*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day)}) *
             ms_per_day +
         ((*hour * 60 + *minute) * 60 + *second) * std::int64_t{1000} + millis;
}

// Digits, perhaps with a decimal point, and no unit.
bool is_bare_number(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789.") == std::string_view::npos;
}

std::optional<std::int64_t> parse_ago(std::string_view text, std::int64_t now_ms) {
  if (is_bare_number(text)) {
    // parse_duration would read seconds, and an epoch such as 1764496800 would then select
    // every record.
    return std::nullopt;
  }
  std::int64_t ago_ms = 0;
  if (!text.empty() && text.back() == 'd') {
    std::int64_t days = 0;
    const std::string_view number = text.substr(0, text.size() - 1);
    const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), days);
    if (number.empty() || ec != std::errc{} || ptr != number.data() + number.size() || days < 0 ||
        days > std::numeric_limits<std::int64_t>::max() / ms_per_day) {
      return std::nullopt;
    }
    ago_ms = days * ms_per_day;
  } else {
    const auto d = parse_duration(text);
    if (!d) {
      return std::nullopt;
    }
    ago_ms = d->count();
  }
  if (ago_ms > now_ms) {
    return std::nullopt;  // before 1970: certainly a typo
  }
  return now_ms - ago_ms;
}

}  // namespace

std::optional<std::int64_t> parse_time_arg(std::string_view text, std::int64_t now_ms) {
  if (text.size() >= 20 && text[4] == '-') {
    return parse_iso_utc(text);
  }
  return parse_ago(text, now_ms);
}

std::string time_arg_expected(std::string_view text) {
  if (is_bare_number(text)) {
    return "a bare number is ambiguous (seconds ago or an epoch?): give a duration ago with its "
           "unit such as 90s, 15m, 2h or 7d, or an ISO-8601 UTC time such as "
           "2026-11-30T10:00:00Z";
  }
  return "expected an ISO-8601 UTC time such as 2026-11-30T10:00:00Z or a duration ago such as "
         "90s, 15m, 2h or 7d";
}

std::string format_utc(std::int64_t epoch_ms) {
  std::string text = format_trace_entry(epoch_ms, "");
  while (!text.empty() && text.back() == ' ') {
    text.pop_back();
  }
  return text;
}

}  // namespace courier::redrive
