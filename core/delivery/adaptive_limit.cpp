#include "core/delivery/adaptive_limit.hpp"

#include <algorithm>
#include <cmath>

namespace courier {

namespace {

constexpr double default_decrease_factor = 0.9;
// A single slow sample cuts at most by half on top of decrease_factor: one outlier (a pause at
// the receiver) must not take the limit down to its minimum.
constexpr double min_latency_ratio = 0.5;

}  // namespace

std::string_view to_string(sample_kind kind) {
  switch (kind) {
    case sample_kind::success:
      return "success";
    case sample_kind::overload:
      return "overload";
    case sample_kind::other_failure:
      return "other_failure";
  }
  return "unknown";
}

std::string_view to_string(limit_cause cause) {
  switch (cause) {
    case limit_cause::successes:
      return "successes";
    case limit_cause::overload:
      return "overload";
    case limit_cause::queueing:
      return "queueing";
  }
  return "unknown";
}

adaptive_limit::adaptive_limit(adaptive_limit_settings settings) : settings_(settings) {
  settings_.min_limit = std::max(settings_.min_limit, 1);
  settings_.max_limit = std::max(settings_.max_limit, settings_.min_limit);
  settings_.initial_limit =
      std::clamp(settings_.initial_limit, settings_.min_limit, settings_.max_limit);
  settings_.additive_increase = std::max(settings_.additive_increase, 1);
  // Written so that NaN fails too.
  if (!(settings_.decrease_factor > 0.0 && settings_.decrease_factor < 1.0)) {
    settings_.decrease_factor = default_decrease_factor;
  }
  if (!(settings_.latency_tolerance >= 1.0)) {
    settings_.latency_tolerance = 1.0;
  }
  settings_.cooldown = std::max(settings_.cooldown, std::chrono::milliseconds{0});
  settings_.baseline_window = std::max(settings_.baseline_window, std::chrono::milliseconds{1});
  limit_ = settings_.initial_limit;
}

std::optional<limit_change> adaptive_limit::on_sample(clock::duration latency, sample_kind kind,
                                                      int in_flight, clock::time_point now) {
  latency = std::max(latency, clock::duration::zero());
  roll_baseline_window(now);
  switch (kind) {
    case sample_kind::success: {
      if (latency == clock::duration::zero()) {
        // The clock did not resolve it: no latency information, and a zero baseline would make
        // every later sample look queued.
        return count_success(in_flight);
      }
      const std::optional<clock::duration> base = baseline();
      current_min_ = current_min_ ? std::min(*current_min_, latency) : latency;
      const auto slow = static_cast<double>(latency.count());
      if (!base || !(slow > settings_.latency_tolerance * static_cast<double>(base->count()))) {
        return count_success(in_flight);
      }
      successes_in_row_ = 0;
      if (!may_cut(latency, now)) {
        return std::nullopt;
      }
      const double ratio = std::max(static_cast<double>(base->count()) / slow, min_latency_ratio);
      return cut(settings_.decrease_factor * ratio, limit_cause::queueing, now);
    }
    case sample_kind::overload:
      // Its latency says how fast the receiver refuses, not how fast it serves: no baseline.
      successes_in_row_ = 0;
      if (!may_cut(latency, now)) {
        return std::nullopt;
      }
      return cut(settings_.decrease_factor, limit_cause::overload, now);
    case sample_kind::other_failure:
      return std::nullopt;
  }
  return std::nullopt;
}

int adaptive_limit::limit() const { return limit_; }

bool adaptive_limit::may_start(int in_flight) const { return in_flight < limit_; }

std::optional<adaptive_limit::clock::duration> adaptive_limit::baseline() const {
  if (current_min_ && previous_min_) {
    return std::min(*current_min_, *previous_min_);
  }
  return current_min_ ? current_min_ : previous_min_;
}

std::optional<adaptive_limit::clock::time_point> adaptive_limit::last_cut() const {
  return last_cut_;
}

int adaptive_limit::successes_in_row() const { return successes_in_row_; }

const adaptive_limit_settings& adaptive_limit::settings() const { return settings_; }

const adaptive_limit::counters& adaptive_limit::counts() const { return counters_; }

void adaptive_limit::roll_baseline_window(clock::time_point now) {
  if (!window_start_) {
    window_start_ = now;
    return;
  }
  const clock::duration elapsed = now - *window_start_;
  if (elapsed < settings_.baseline_window) {
    return;
  }
  // After two windows without a sample the previous window is empty too.
  previous_min_ = elapsed < 2 * settings_.baseline_window ? current_min_ : std::nullopt;
  current_min_.reset();
  window_start_ = now;
}

bool adaptive_limit::may_cut(clock::duration latency, clock::time_point now) const {
  if (!last_cut_) {
    return true;
  }
  const clock::duration since_cut = now - *last_cut_;
  if (since_cut < settings_.cooldown) {
    return false;
  }
  // An attempt sent before the last cut (now - latency < last cut) went out under the old
  // limit. Compared as durations: now - latency could leave the clock's range.
  return latency <= since_cut;
}

std::optional<limit_change> adaptive_limit::cut(double factor, limit_cause cause,
                                                clock::time_point now) {
  // Compared in double first: converting an out-of-range double is undefined.
  const double scaled = std::floor(static_cast<double>(limit_) * factor);
  const int target = scaled < static_cast<double>(limit_) ? static_cast<int>(scaled) : limit_;
  // Always by at least one, never below the minimum.
  const int next = std::max(settings_.min_limit, std::min(target, limit_ - 1));
  if (next >= limit_) {
    return std::nullopt;
  }
  const limit_change change{limit_, next, cause};
  limit_ = next;
  last_cut_ = now;
  if (cause == limit_cause::overload) {
    ++counters_.overload_cuts;
  } else {
    ++counters_.queueing_cuts;
  }
  return change;
}

std::optional<limit_change> adaptive_limit::count_success(int in_flight) {
  // With less than half the limit in use the route is not limited by it: a success then says
  // nothing about a higher limit (concurrency-limits' AIMDLimit does the same).
  if (2 * static_cast<std::int64_t>(in_flight) < limit_) {
    return std::nullopt;
  }
  if (++successes_in_row_ < limit_) {
    return std::nullopt;
  }
  successes_in_row_ = 0;
  const auto grown = static_cast<std::int64_t>(limit_) + settings_.additive_increase;
  const int next = static_cast<int>(std::min<std::int64_t>(grown, settings_.max_limit));
  if (next == limit_) {
    return std::nullopt;
  }
  const limit_change change{limit_, next, limit_cause::successes};
  limit_ = next;
  ++counters_.increases;
  return change;
}

}  // namespace courier
