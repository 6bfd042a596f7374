#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace courier {

// A whole number written in decimal digits with an optional '-', nothing else, in T's range:
// no whitespace, no '+', no trailing characters. What Kafka headers, topic configs and
// librdkafka properties carry as numbers.
template <typename T>
std::optional<T> parse_decimal(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end) {
    return std::nullopt;
  }
  return value;
}

}  // namespace courier
