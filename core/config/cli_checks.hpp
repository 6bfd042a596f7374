#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace courier {

// A decimal argument: digits only, at most `max_digits` of them, no overflow. strtoull and
// CLI11's own conversion would take "-1" as a huge number and "010" as octal.
std::optional<std::uint64_t> parse_unsigned(std::string_view text, std::size_t max_digits = 20);

// A CLI11 check that passes what `accepts` accepts and otherwise fails with
// "<expected>, got '<text>'"; CLI11 prefixes the message with the flag's name.
CLI::Validator argument_check(std::function<bool(const std::string&)> accepts,
                              std::string expected);

// An integer from `min` to `max` as parse_unsigned(text, max_digits) reads it.
CLI::Validator integer_check(std::uint64_t min, std::uint64_t max, std::size_t max_digits = 20);

}  // namespace courier
