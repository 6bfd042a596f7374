#include "core/redrive/redrive_headers.hpp"

#include "core/retry/provenance.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace courier::redrive {

std::optional<int> parse_redrive_count(std::string_view text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  // Digits only: past int's range means more than any limit, not a malformed header. The value
  // never exceeds INT_MAX before a step, so value * 10 + 9 cannot overflow 64 bits.
  constexpr std::int64_t most = std::numeric_limits<int>::max();
  std::int64_t value = 0;
  for (const char d : text) {
    value = std::min(value * 10 + (d - '0'), most);
  }
  return static_cast<int>(value);
}

int next_redrive_count(int previous) {
  return previous >= std::numeric_limits<int>::max() ? std::numeric_limits<int>::max()
                                                     : std::max(previous, 0) + 1;
}
bool is_dropped_on_redrive(std::string_view name) {
  return is_provenance_header(name) || name == redrive_count_header || name == redrive_at_header ||
         name == redrive_from_header;
}

// Distinct by role: the DLQ headers and the redrive's own count and time.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
header_list redrive_headers(const header_list& dlq_headers, int previous_count, std::int64_t now_ms,
                            std::string_view from_coordinates) {
  header_list out;
  out.reserve(dlq_headers.size() + 3);
  for (const auto& h : dlq_headers) {
    if (!is_dropped_on_redrive(h.first)) {
      out.push_back(h);
    }
  }
  out.emplace_back(std::string{redrive_count_header},
                   std::to_string(next_redrive_count(previous_count)));
  out.emplace_back(std::string{redrive_at_header}, std::to_string(now_ms));
  out.emplace_back(std::string{redrive_from_header}, std::string{from_coordinates});
  return out;
}

guard_verdict loop_guard(int redrive_count, int max_redrives, bool force) {
  if (redrive_count < max_redrives) {
    return guard_verdict::allowed;
  }
  return force ? guard_verdict::forced : guard_verdict::refused;
}

}  // namespace courier::redrive
