#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace courier::app {

// One end of `courier audit`'s range (--from, --until): a time, one offset for every partition,
// or offsets by partition ("0:1200,3:900"; a partition not named keeps its default end).
struct audit_bound {
  enum class kind : std::uint8_t { time, offset, offsets };
  kind what = kind::offset;
  std::int64_t time_ms = 0;                           // time: epoch ms
  std::int64_t offset = 0;                            // offset
  std::map<std::int32_t, std::int64_t> by_partition;  // offsets
};

// A time as redrive reads one (ISO-8601 UTC, or a duration ago: "90s", "2h", "7d"), a bare
// offset, or P:OFFSET pairs separated by commas; nothing for anything else.
std::optional<audit_bound> parse_audit_bound(std::string_view text, std::int64_t now_ms);

// For the usage error about a value parse_audit_bound refused.
std::string audit_bound_expected(std::string_view flag, std::string_view text);

// The offset `bound` gives `partition`: `fallback` when there is no bound or it does not name
// the partition, `at_time` of its time for a time (the first offset at or after it).
std::int64_t offset_of(const std::optional<audit_bound>& bound, std::int32_t partition,
                       std::int64_t fallback,
                       const std::function<std::int64_t(std::int64_t)>& at_time);

}  // namespace courier::app
