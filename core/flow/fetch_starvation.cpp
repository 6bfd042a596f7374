#include "core/flow/fetch_starvation.hpp"

#include <algorithm>

namespace courier {

// Distinct by role: a lag threshold and a share, from settings.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
fetch_starvation::fetch_starvation(std::int64_t lag_threshold, double share)
    : lag_threshold_(std::max<std::int64_t>(lag_threshold, 0)),
      share_(std::clamp(share, 0.0, 1.0)) {}

void fetch_starvation::on_empty_poll(std::int64_t waited_ms) {
  if (window_start_ms_ && waited_ms > 0) {
    starved_ms_ += waited_ms;
  }
}

void fetch_starvation::on_source_paused(std::int64_t now_ms) { source_paused_ms_ = now_ms; }

// Distinct by role: a time and a lag, named at the one call.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
std::optional<fetch_starvation::verdict> fetch_starvation::on_stats(std::int64_t now_ms,
                                                                    std::int64_t lag) {
  std::optional<verdict> v;
  if (window_start_ms_) {
    const auto window = now_ms - *window_start_ms_;
    const auto behind = std::min(window_start_lag_, lag);
    // The wait for a refetch after a resume (a breaker's Open ended) is no small prefetch.
    const bool paused =
        source_paused_ms_ && *source_paused_ms_ + resume_refetch_ms > *window_start_ms_;
    // Behind at both ends: at the end of a backlog the lag is gone by the second snapshot, and
    // the empty polls that drained it are not a stall.
    if (window > 0 && !paused && behind > lag_threshold_ &&
        static_cast<double>(starved_ms_) >= share_ * static_cast<double>(window)) {
      v = verdict{window, std::min(starved_ms_, window), behind};
    }
  }
  window_start_ms_ = now_ms;
  window_start_lag_ = lag;
  starved_ms_ = 0;
  return v;
}

}  // namespace courier
