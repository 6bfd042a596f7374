#include "core/time/duration.hpp"

#include <cstdint>
#include <limits>

namespace courier {
namespace {

using rep = std::chrono::milliseconds::rep;

constexpr rep max_rep = std::numeric_limits<rep>::max();

// Beyond this many significant fraction digits no unit we know can give a
// whole number of milliseconds (1h = 3'600'000ms has five factors of ten at
// most), and it keeps the fraction arithmetic far from overflow.
constexpr std::size_t max_fraction_digits = 9;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<rep> unit_in_ms(std::string_view unit) {
  if (unit.empty() || unit == "s") {
    return 1000;
  }
  if (unit == "ms") {
    return 1;
  }
  if (unit == "m") {
    return 60 * 1000;
  }
  if (unit == "h") {
    return 60 * 60 * 1000;
  }
  return std::nullopt;
}

// Digits only, so a sign or an exponent never sneaks in; nothing on overflow.
std::optional<rep> parse_digits(std::string_view digits) {
  rep value = 0;
  for (char c : digits) {
    const rep digit = c - '0';
    if (value > (max_rep - digit) / 10) {
      return std::nullopt;
    }
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size() && is_digit(text[pos])) {
    ++pos;
  }
  const std::string_view whole = text.substr(0, pos);
  if (whole.empty()) {
    return std::nullopt;
  }
  std::string_view fraction;
  if (pos < text.size() && text[pos] == '.') {
    const std::size_t start = ++pos;
    while (pos < text.size() && is_digit(text[pos])) {
      ++pos;
    }
    fraction = text.substr(start, pos - start);
    if (fraction.empty()) {
      return std::nullopt;
    }
  }
  const auto unit = unit_in_ms(text.substr(pos));
  if (!unit) {
    return std::nullopt;
  }

  const auto whole_value = parse_digits(whole);
  if (!whole_value || *whole_value > max_rep / *unit) {
    return std::nullopt;
  }
  rep total = *whole_value * *unit;

  while (!fraction.empty() && fraction.back() == '0') {
    fraction.remove_suffix(1);
  }
  if (fraction.size() > max_fraction_digits) {
    return std::nullopt;
  }
  if (!fraction.empty()) {
    rep scale = 1;
    for (std::size_t i = 0; i < fraction.size(); ++i) {
      scale *= 10;
    }
    // fraction < 1e9 and unit <= 3.6e6, so the product fits comfortably.
    const rep scaled = *parse_digits(fraction) * *unit;
    if (scaled % scale != 0) {
      return std::nullopt;
    }
    const rep extra = scaled / scale;
    if (total > max_rep - extra) {
      return std::nullopt;
    }
    total += extra;
  }
  return std::chrono::milliseconds{total};
}

std::string format_duration(std::chrono::milliseconds d) {
  const rep ms = d.count();
  if (ms == 0) {
    return "0s";
  }
  if (ms < 0) {
    // Negative durations are never valid config, but a message that shows
    // one should still show what it is; min() has no positive counterpart.
    if (ms == std::numeric_limits<rep>::min()) {
      return std::to_string(ms) + "ms";
    }
    return "-" + format_duration(std::chrono::milliseconds{-ms});
  }
  if (ms % (rep{60} * 60 * 1000) == 0) {
    return std::to_string(ms / (rep{60} * 60 * 1000)) + "h";
  }
  if (ms % (rep{60} * 1000) == 0) {
    return std::to_string(ms / (rep{60} * 1000)) + "m";
  }
  if (ms % 1000 == 0) {
    return std::to_string(ms / 1000) + "s";
  }
  return std::to_string(ms) + "ms";
}

}  // namespace courier
