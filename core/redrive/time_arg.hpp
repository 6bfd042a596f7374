#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace courier::redrive {

// A --since/--until value as epoch ms: ISO-8601 UTC ("2026-11-30T10:00:00Z", optionally with
// ".123" milliseconds) or a duration ago with its unit ("90s", "15m", "2h", "7d"). Nothing for
// anything else, a bare number included: "1764496800" may mean seconds ago or an epoch.
std::optional<std::int64_t> parse_time_arg(std::string_view text, std::int64_t now_ms);

// What a --since/--until value must look like, for the usage error about `text` (which
// parse_time_arg refused): a bare number is told both forms it may have meant.
std::string time_arg_expected(std::string_view text);

// "2026-11-30T10:00:00.123Z".
std::string format_utc(std::int64_t epoch_ms);

}  // namespace courier::redrive
