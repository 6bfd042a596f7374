#pragma once

// The adaptive concurrency limit of one route (issue 10): how many attempts may be in flight to
// its receiver, learned from the receiver's answers instead of configured.
//
// AIMD on two congestion signals, in the spirit of uForwarder's VegasAdaptiveInflightLimiter
// (which wraps Netflix concurrency-limits' VegasLimit) and of concurrency-limits' AIMDLimit and
// Gradient2Limit:
// - additive increase: after limit() successes in a row, +additive_increase (about +1 per
//   round trip while the limit is in use: at least half of it in flight);
// - multiplicative decrease on an overload answer (429, 503, a timeout): x decrease_factor;
// - multiplicative decrease on queueing: a success slower than latency_tolerance x the baseline
//   cuts to limit x decrease_factor x baseline/latency (the ratio at least 1/2), which drops
//   the queue Vegas estimates (limit x (1 - baseline/latency)) and lands just below the
//   receiver's capacity, so the next samples see its unqueued latency again;
// - at most one cut per window: only an answer to an attempt that started at or after the last
//   cut (now - latency >= last cut), and no sooner than `cooldown` after it, can cut again. The
//   other answers of the same burst were sent under the old limit and say nothing about the new
//   one. Any congestion signal, cut or not, restarts the successes in a row.
// - the baseline is the smallest success latency of the current and the previous
//   baseline_window (a windowed minimum as BBR's min_rtt), so a permanent change of the
//   receiver's latency is accepted within two windows.
// Other failures (a 400, a TLS error: about the record or the endpoint, not its load) move
// nothing. Pure and thread-free: time and latency come in with each sample, no logging.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace courier {

enum class sample_kind {
  success,        // 2xx
  overload,       // 429, 503 or a timeout: the receiver is saturated
  other_failure,  // anything else; ignored by the limit
};

std::string_view to_string(sample_kind kind);

struct adaptive_limit_settings {
  int min_limit = 1;
  int max_limit = 64;  // the route's max_in_flight
  int initial_limit = 8;
  // Added after limit() successes in a row.
  int additive_increase = 1;
  // A cut multiplies the limit by this (concurrency-limits' AIMDLimit backoffRatio).
  double decrease_factor = 0.9;
  // A success slower than this times the baseline is queueing (Gradient2Limit's rttTolerance).
  double latency_tolerance = 1.5;
  // Shortest time between two cuts, on top of the once-per-round-trip rule.
  std::chrono::milliseconds cooldown{0};
  // The baseline latency forgets samples older than one to two of these.
  std::chrono::milliseconds baseline_window{10000};
};

// Why the limit moved.
enum class limit_cause {
  successes,  // additive increase
  overload,   // an overload answer
  queueing,   // a success well above the baseline latency
};

std::string_view to_string(limit_cause cause);

struct limit_change {
  int from = 0;
  int to = 0;
  limit_cause cause = limit_cause::successes;
};

class adaptive_limit {
 public:
  using clock = std::chrono::steady_clock;

  // Counters the limit keeps itself; the shell publishes them.
  struct counters {
    std::uint64_t increases = 0;
    std::uint64_t overload_cuts = 0;
    std::uint64_t queueing_cuts = 0;
  };

  // min_limit below 1 counts as 1, max_limit below min_limit as min_limit, initial_limit is
  // clamped into [min_limit, max_limit], additive_increase below 1 counts as 1, a
  // decrease_factor outside (0, 1) as 0.9, a latency_tolerance below 1 as 1, a negative cooldown
  // as 0 and a baseline_window below 1 ms as 1 ms.
  explicit adaptive_limit(adaptive_limit_settings settings);

  // -- samples -------------------------------------------------------------------------------

  // One answered attempt: `latency` from its start to its answer (to the timeout for a
  // timeout), `in_flight` the route's attempts in flight when it was answered, this one
  // included, `now` when it was answered. Returns the change it caused, if any.
  std::optional<limit_change> on_sample(clock::duration latency, sample_kind kind, int in_flight,
                                        clock::time_point now);

  // -- decisions -----------------------------------------------------------------------------

  [[nodiscard]] int limit() const;
  // Whether one more attempt may start while `in_flight` are out: in_flight < limit().
  [[nodiscard]] bool may_start(int in_flight) const;

  // -- observers -----------------------------------------------------------------------------

  // The windowed minimum success latency; nullopt before the first success or after two
  // windows without one.
  [[nodiscard]] std::optional<clock::duration> baseline() const;
  // When the limit was last cut; nullopt if it never was.
  [[nodiscard]] std::optional<clock::time_point> last_cut() const;
  // Successes in a row toward the next increase.
  [[nodiscard]] int successes_in_row() const;
  [[nodiscard]] const adaptive_limit_settings& settings() const;
  [[nodiscard]] const counters& counts() const;

 private:
  void roll_baseline_window(clock::time_point now);
  [[nodiscard]] bool may_cut(clock::duration latency, clock::time_point now) const;
  std::optional<limit_change> cut(double factor, limit_cause cause, clock::time_point now);
  std::optional<limit_change> count_success(int in_flight);

  adaptive_limit_settings settings_;
  int limit_ = 1;
  int successes_in_row_ = 0;
  std::optional<clock::time_point> last_cut_;
  // The windowed minimum: the current window's and the previous one's smallest success.
  std::optional<clock::time_point> window_start_;
  std::optional<clock::duration> current_min_;
  std::optional<clock::duration> previous_min_;
  counters counters_;
};

}  // namespace courier
