#include "app/audit_bounds.hpp"

#include <charconv>

#include "core/redrive/time_arg.hpp"

namespace courier::app {

namespace {

template <typename Int>
std::optional<Int> whole_number(std::string_view text) {
  Int v{};
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc{} || ptr != end || v < 0) {
    return std::nullopt;
  }
  return v;
}

}  // namespace

std::optional<audit_bound> parse_audit_bound(std::string_view text, std::int64_t now_ms) {
  audit_bound b;
  if (const auto offset = whole_number<std::int64_t>(text)) {
    b.what = audit_bound::kind::offset;
    b.offset = *offset;
    return b;
  }
  if (text.find(':') != std::string_view::npos && text.find('T') == std::string_view::npos) {
    b.what = audit_bound::kind::offsets;
    while (!text.empty()) {
      const auto comma = text.find(',');
      const auto pair = text.substr(0, comma);
      text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
      const auto colon = pair.find(':');
      if (colon == std::string_view::npos) {
        return std::nullopt;
      }
      const auto partition = whole_number<std::int32_t>(pair.substr(0, colon));
      const auto offset = whole_number<std::int64_t>(pair.substr(colon + 1));
      if (!partition || !offset || !b.by_partition.emplace(*partition, *offset).second) {
        return std::nullopt;
      }
      if (comma != std::string_view::npos && text.empty()) {
        return std::nullopt;  // a trailing comma
      }
    }
    return b;
  }
  if (const auto at = redrive::parse_time_arg(text, now_ms)) {
    b.what = audit_bound::kind::time;
    b.time_ms = *at;
    return b;
  }
  return std::nullopt;
}

std::string audit_bound_expected(std::string_view flag, std::string_view text) {
  return std::string{flag} + ": '" + std::string{text} +
         "' is neither a time (2026-12-01T10:00:00Z, or a duration ago such as 2h), an offset "
         "(1200), nor offsets by partition (0:1200,3:900)";
}

// The partition, then the offset it falls back to, as everywhere here.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
std::int64_t offset_of(const std::optional<audit_bound>& bound, std::int32_t partition,
                       std::int64_t fallback,
                       const std::function<std::int64_t(std::int64_t)>& at_time) {
  if (!bound) {
    return fallback;
  }
  switch (bound->what) {
    case audit_bound::kind::time:
      return at_time(bound->time_ms);
    case audit_bound::kind::offset:
      return bound->offset;
    case audit_bound::kind::offsets: {
      const auto it = bound->by_partition.find(partition);
      return it == bound->by_partition.end() ? fallback : it->second;
    }
  }
  return fallback;
}

}  // namespace courier::app
