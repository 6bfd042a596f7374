#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace courier::redrive {

// A --since/--until value as epoch ms: ISO-8601 UTC ("2026-11-30T10:00:00Z", optionally with
// ".123" milliseconds) or a duration ago ("90s", "15m", "2h", "7d"; a bare number is seconds).
// Nothing for anything else.
std::optional<std::int64_t> parse_time_arg(std::string_view text, std::int64_t now_ms);

// "2026-11-30T10:00:00.123Z".
std::string format_utc(std::int64_t epoch_ms);

}  // namespace courier::redrive
