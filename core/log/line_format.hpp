#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/log/json_log.hpp"

namespace courier::log {

// How a log line is written: `json`, one object a line for machines (what tools and tests
// parse), or `human`, one line of time, level, event and key=value pairs for a person.
enum class line_format { human, json };

// What --log-format asks for: `auto` is human on a terminal and JSON otherwise (a pipe, a
// file, a container's log collector).
enum class format_choice { auto_detect, human, json };

// "auto", "human" or "json"; nullopt for anything else.
std::optional<format_choice> parse_format_choice(std::string_view text);

// The format a choice means for an output that is (or is not) a terminal.
line_format resolve_format(format_choice choice, bool is_terminal);

// One event as one line, without the newline; control characters (newlines included) are
// always escaped, so an event never spans two lines.
//   json:  {"ts":"2026-12-01T19:06:18.123Z","level":"info","event":"...",fields...}
//   human: 2026-12-01T19:06:18.123Z INFO  partitions assigned route=shipments partitions=t[0-3]
std::string format_line(line_format format, std::int64_t unix_ms, level lvl, std::string_view event,
                        const nlohmann::json& fields);

}  // namespace courier::log
