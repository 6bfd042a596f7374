#include "core/delivery/retry_after.hpp"

#include <cstdint>
#include <limits>

#include "core/time/http_date.hpp"

namespace courier {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

bool is_space(char c) { return c == ' ' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && is_space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

std::optional<milliseconds> parse_delta_seconds(std::string_view s) {
  // Saturate well below milliseconds::max() so callers can still add it to a time point.
  constexpr std::int64_t max_seconds = std::numeric_limits<std::int64_t>::max() / 1000 / 4;
  std::int64_t v = 0;
  for (char c : s) {
    if (!is_digit(c)) {
      return std::nullopt;
    }
    if (v < max_seconds) {
      v = v * 10 + (c - '0');
    }
  }
  if (v > max_seconds) {
    v = max_seconds;
  }
  return std::chrono::duration_cast<milliseconds>(seconds{v});
}

}  // namespace

std::optional<milliseconds> parse_retry_after(std::string_view value,
                                              std::chrono::system_clock::time_point now) {
  const std::string_view s = trim(value);
  if (s.empty()) {
    return std::nullopt;
  }
  if (is_digit(s.front())) {
    return parse_delta_seconds(s);
  }
  const auto when = parse_http_date(s, now);
  if (!when) {
    return std::nullopt;
  }
  // Compare in milliseconds since the epoch: system_clock's nanoseconds cannot hold every
  // four-digit year, milliseconds can.
  const std::int64_t when_ms =
      std::chrono::duration_cast<milliseconds>(when->time_since_epoch()).count();
  const std::int64_t now_ms = std::chrono::floor<milliseconds>(now.time_since_epoch()).count();
  if (when_ms <= now_ms) {
    return milliseconds{0};
  }
  // Flooring `now` rounds the wait up: waking early would be before the receiver's date.
  return milliseconds{when_ms - now_ms};
}

}  // namespace courier
