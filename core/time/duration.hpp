#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace courier {

// Parses "500ms", "3s", "5m", "1h", or a bare number of seconds ("2" = 2s,
// "1.5" = 1500ms). A fraction is allowed with any unit as long as the result is
// a whole number of milliseconds ("1.5s" is fine, "1.5ms" is not). Returns
// nothing for empty input, a sign, whitespace, an unknown unit, or overflow.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

// The shortest exact form that parse_duration reads back: "500ms", "3s", "5m",
// "1h"; zero is "0s".
std::string format_duration(std::chrono::milliseconds d);

}  // namespace courier
