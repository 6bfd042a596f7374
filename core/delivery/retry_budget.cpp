#include "core/delivery/retry_budget.hpp"

#include <algorithm>

namespace courier {

retry_budget::retry_budget(const retry_budget_settings& s)
    : settings_(s),
      slice_length_(
          std::max<std::chrono::milliseconds>(std::chrono::milliseconds{100}, s.window / 100)),
      slices_(static_cast<std::size_t>(std::max<std::int64_t>(1, s.window / slice_length_))) {}

// Drops the slices that left the window since the last call; a clock that goes back stays in
// the newest slice.
void retry_budget::advance(time_point now) {
  const std::int64_t index =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) / slice_length_;
  if (head_ < 0) {
    head_ = index;
    return;
  }
  if (index <= head_) {
    return;
  }
  const auto n = static_cast<std::int64_t>(slices_.size());
  const std::int64_t steps = std::min(index - head_, n);
  for (std::int64_t i = 1; i <= steps; ++i) {
    auto& s = slices_[static_cast<std::size_t>((head_ + i) % n)];
    total_.firsts -= s.firsts;
    total_.retries -= s.retries;
    s = slice{};
  }
  head_ = index;
}

retry_budget::slice& retry_budget::current(time_point now) {
  advance(now);
  return slices_[static_cast<std::size_t>(head_ % static_cast<std::int64_t>(slices_.size()))];
}

void retry_budget::note_first(time_point now) {
  ++current(now).firsts;
  ++total_.firsts;
}

void retry_budget::note_retry(time_point now) {
  ++current(now).retries;
  ++total_.retries;
}

bool retry_budget::may_retry(time_point now) {
  advance(now);
  const double window_seconds =
      std::chrono::duration<double>(slice_length_ * static_cast<std::int64_t>(slices_.size()))
          .count();
  const double allowed = settings_.ratio * static_cast<double>(total_.firsts) +
                         settings_.min_per_second * window_seconds;
  return static_cast<double>(total_.retries) + 1.0 <= allowed;
}

std::uint64_t retry_budget::firsts(time_point now) {
  advance(now);
  return total_.firsts;
}

std::uint64_t retry_budget::retries(time_point now) {
  advance(now);
  return total_.retries;
}

}  // namespace courier
