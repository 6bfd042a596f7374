#include "core/flow/head_of_line.hpp"

namespace courier {

// Distinct by role: a count and an age bound, from settings.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
head_of_line_guard::head_of_line_guard(std::size_t max_records, std::int64_t max_age_ms)
    : max_records_(max_records), max_age_ms_(max_age_ms) {}

std::optional<std::int64_t> head_of_line_guard::check(const offset_tracker& t,
                                                      std::int64_t now_ms) {
  const auto head = t.head();
  if (head != head_) {
    head_ = head;
    head_since_ms_ = now_ms;
  }
  const auto last = t.last_tracked();
  if (!head || !last || reported_ == head) {
    return std::nullopt;
  }
  const auto held_back = static_cast<std::uint64_t>(*last - *head + 1);
  const bool too_many = max_records_ != 0 && held_back > max_records_;
  const bool too_old = max_age_ms_ != 0 && now_ms - head_since_ms_ >= max_age_ms_;
  if (!too_many && !too_old) {
    return std::nullopt;
  }
  reported_ = head;
  return head;
}

std::optional<std::int64_t> head_of_line_guard::age_deadline_ms() const {
  if (max_age_ms_ == 0 || !head_ || reported_ == head_) {
    return std::nullopt;
  }
  return head_since_ms_ + max_age_ms_;
}

}  // namespace courier
