#include "core/time/http_date.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/time/civil_date.hpp"

namespace courier {
namespace {

constexpr std::array<std::string_view, 12> month_names{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::array<std::string_view, 7> short_day_names{"Mon", "Tue", "Wed", "Thu",
                                                          "Fri", "Sat", "Sun"};
constexpr std::array<std::string_view, 7> long_day_names{
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A forward-only reader over the date text; every step reports whether it matched.
class cursor {
 public:
  explicit cursor(std::string_view s) : rest_(s) {}

  bool done() const { return rest_.empty(); }

  bool literal(std::string_view lit) {
    if (rest_.substr(0, lit.size()) != lit) {
      return false;
    }
    rest_.remove_prefix(lit.size());
    return true;
  }

  // Exactly `n` digits.
  std::optional<int> digits(std::size_t n) {
    if (rest_.size() < n) {
      return std::nullopt;
    }
    int v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!is_digit(rest_[i])) {
        return std::nullopt;
      }
      v = v * 10 + (rest_[i] - '0');
    }
    rest_.remove_prefix(n);
    return v;
  }

  // Index of the name in `names` that the input starts with.
  template <std::size_t N>
  std::optional<unsigned> one_of(const std::array<std::string_view, N>& names) {
    for (std::size_t i = 0; i < N; ++i) {
      if (literal(names[i])) {
        return static_cast<unsigned>(i);
      }
    }
    return std::nullopt;
  }

 private:
  std::string_view rest_;
};

struct civil_time {
  int year = 0;
  unsigned month = 0;  // 1..12
  unsigned day = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
};

std::optional<civil_time> read_clock(cursor& in, civil_time t) {
  auto h = in.digits(2);
  if (!h || !in.literal(":")) {
    return std::nullopt;
  }
  auto mi = in.digits(2);
  if (!mi || !in.literal(":")) {
    return std::nullopt;
  }
  auto s = in.digits(2);
  if (!s) {
    return std::nullopt;
  }
  t.hour = *h;
  t.minute = *mi;
  t.second = *s;
  return t;
}

std::optional<unsigned> read_month(cursor& in) {
  auto m = in.one_of(month_names);
  if (!m) {
    return std::nullopt;
  }
  return *m + 1;
}

// "<day><sep><month><sep><year> hh:mm:ss GMT": what IMF-fixdate (sep " ", four-digit year)
// and RFC 850 (sep "-", two-digit year) share after the weekday and ", ".
std::optional<civil_time> read_gmt_date(cursor& in, std::string_view sep, std::size_t year_digits) {
  auto d = in.digits(2);
  if (!d || !in.literal(sep)) {
    return std::nullopt;
  }
  auto m = read_month(in);
  if (!m || !in.literal(sep)) {
    return std::nullopt;
  }
  auto y = in.digits(year_digits);
  if (!y || !in.literal(" ")) {
    return std::nullopt;
  }
  civil_time t;
  t.year = *y;
  t.month = *m;
  t.day = static_cast<unsigned>(*d);
  auto r = read_clock(in, t);
  if (!r || !in.literal(" GMT") || !in.done()) {
    return std::nullopt;
  }
  return r;
}

// "Sun, 06 Nov 1994 08:49:37 GMT"
std::optional<civil_time> parse_imf_fixdate(std::string_view s) {
  cursor in{s};
  if (!in.one_of(short_day_names) || !in.literal(", ")) {
    return std::nullopt;
  }
  return read_gmt_date(in, " ", 4);
}

// "Sunday, 06-Nov-94 08:49:37 GMT". The two-digit year is the one that is not more than
// 50 years in the future, as RFC 9110 5.6.7 asks.
std::optional<civil_time> parse_rfc850(std::string_view s, int current_year) {
  cursor in{s};
  if (!in.one_of(long_day_names) || !in.literal(", ")) {
    return std::nullopt;
  }
  auto t = read_gmt_date(in, "-", 2);
  if (!t) {
    return std::nullopt;
  }
  int year = current_year - current_year % 100 + t->year;
  if (year > current_year + 50) {
    year -= 100;
  }
  t->year = year;
  return t;
}

// "Sun Nov  6 08:49:37 1994" (the day is space-padded).
std::optional<civil_time> parse_asctime(std::string_view s) {
  cursor in{s};
  civil_time t;
  if (!in.one_of(short_day_names) || !in.literal(" ")) {
    return std::nullopt;
  }
  auto m = read_month(in);
  if (!m || !in.literal(" ")) {
    return std::nullopt;
  }
  std::optional<int> d;
  if (in.literal(" ")) {
    d = in.digits(1);
  } else {
    d = in.digits(2);
  }
  if (!d || !in.literal(" ")) {
    return std::nullopt;
  }
  t.month = *m;
  t.day = static_cast<unsigned>(*d);
  auto r = read_clock(in, t);
  if (!r || !in.literal(" ")) {
    return std::nullopt;
  }
  auto y = in.digits(4);
  if (!y || !in.done()) {
    return std::nullopt;
  }
  r->year = *y;
  return r;
}

bool valid(const civil_time& t) {
  // Second 60 is a leap second; it lands on the next minute's first second.
  return t.month >= 1 && t.month <= 12 && t.day >= 1 && t.day <= days_in_month(t.year, t.month) &&
         t.hour <= 23 && t.minute <= 59 && t.second <= 60;
}

int civil_year_of(std::chrono::system_clock::time_point now) {
  const auto days = std::chrono::floor<std::chrono::hours>(now.time_since_epoch()).count() / 24;
  return static_cast<int>(civil_from_days(days).year);
}

}  // namespace

std::optional<sys_seconds> parse_http_date(std::string_view value,
                                           std::chrono::system_clock::time_point now) {
  auto t = parse_imf_fixdate(value);
  if (!t) {
    t = parse_rfc850(value, civil_year_of(now));
  }
  if (!t) {
    t = parse_asctime(value);
  }
  if (!t || !valid(*t)) {
    return std::nullopt;
  }
  const std::int64_t epoch_seconds = days_from_civil({t->year, t->month, t->day}) * 86400 +
                                     std::int64_t{t->hour} * 3600 + std::int64_t{t->minute} * 60 +
                                     t->second;
  return sys_seconds{std::chrono::seconds{epoch_seconds}};
}

}  // namespace courier
