#include "core/config/cli_checks.hpp"

#include <limits>
#include <utility>

namespace courier {

std::optional<std::uint64_t> parse_unsigned(std::string_view text, std::size_t max_digits) {
  if (text.empty() || text.size() > max_digits) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
      return std::nullopt;
    }
    value = value * 10 + digit;
  }
  return value;
}

CLI::Validator argument_check(std::function<bool(const std::string&)> accepts,
                              std::string expected) {
  return CLI::Validator{
      [accepts = std::move(accepts), expected = std::move(expected)](std::string& text) {
        if (accepts(text)) {
          return std::string{};
        }
        return expected + ", got '" + text + "'";
      },
      /*validator_desc=*/""};
}

CLI::Validator integer_check(std::uint64_t min, std::uint64_t max, std::size_t max_digits) {
  return argument_check(
      [min, max, max_digits](const std::string& text) {
        const auto value = parse_unsigned(text, max_digits);
        return value && *value >= min && *value <= max;
      },
      "expected an integer from " + std::to_string(min) + " to " + std::to_string(max));
}

}  // namespace courier
