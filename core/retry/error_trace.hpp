#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace courier {

// "2026-11-30T10:00:00.123Z http_503": the attempt's time in ISO-8601 UTC, then its outcome.
std::string format_trace_entry(std::int64_t at_ms, std::string_view outcome);

// The value of `courier.error.trace`: the earlier history (`previous`, the header's value if the
// record has one), then this sequence's entries, one a line; when that does not fit
// max_header_value, the newest entries behind a "…" line.
std::string merged_trace(std::optional<std::string_view> previous,
                         const std::vector<std::string>& latest);

}  // namespace courier
