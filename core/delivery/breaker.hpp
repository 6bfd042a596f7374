#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace courier {

enum class breaker_state { closed, open, half_open };

std::string_view to_string(breaker_state state);

// The state of a route's `count` endpoints' breakers taken together, for pausing its partitions
// (actors/pause_controller): Open only when every one is (one that has not reported counts as
// Closed), Closed when one is, else Half-Open (some Open, the rest probing). For one endpoint,
// its breaker's state.
breaker_state joint_state(const std::vector<breaker_state>& known, std::size_t count);

struct breaker_settings {
  // Consecutive failed deliveries (one delivery = one event) that open the breaker.
  int trip_after = 5;
  std::chrono::milliseconds open_timeout{15000};
  // Probes allowed out at once while half-open.
  int half_open_max_requests = 1;
  // Once the receiver said the endpoint is gone (410), Open lasts this long instead of
  // open_timeout before one probe goes out; 0: never (only a restart closes it).
  std::chrono::milliseconds gone_probe_interval{std::chrono::minutes{5}};
  // A failure that opens the breaker with the receiver's Retry-After longer than open_timeout
  // (an announced maintenance: 503 with Retry-After: 3600) keeps it Open that long instead, up
  // to this: no probe goes out before the receiver asked for one.
  std::chrono::milliseconds max_retry_after_hold{std::chrono::minutes{10}};
};

// Why a delivery failed, as a tier record's headers say it: what an Open names as its reason.
struct breaker_failure {
  std::string error_class;  // tls, timeout, http_503, ...
  std::string message;      // certificate verify failed: ..., the receiver answered 503, ...
};

struct breaker_transition {
  breaker_state from;
  breaker_state to;
};

// A route's breaker changed state: what the breaker actor tells its subscribers.
struct breaker_change {
  std::string route;
  breaker_state from = breaker_state::closed;
  breaker_state to = breaker_state::closed;
  std::uint64_t generation = 0;  // the breaker's, after the change
};

// The circuit breaker of one route as a pure state machine with gobreaker's semantics
// (DESIGN.md section 2). Time is passed in; the owning actor schedules on_open_timeout().
// Every transition starts a new generation: failure count and half-open permits reset.
class breaker {
 public:
  using clock = std::chrono::steady_clock;

  // Non-positive trip_after and half_open_max_requests count as 1, as in gobreaker.
  explicit breaker(breaker_settings settings);

  [[nodiscard]] breaker_state state() const;

  // Closed: true. Open: false (opening to half-open is on_open_timeout's job). Half-open:
  // true while fewer than half_open_max_requests probes are outstanding.
  [[nodiscard]] bool try_acquire(clock::time_point now);

  // Closed: resets the consecutive failures. Half-open: -> closed. Open: ignored (a result
  // of a request that started before the breaker opened).
  std::optional<breaker_transition> on_success(clock::time_point now);

  // Closed: one more consecutive failure; the trip_after-th -> open. Half-open: -> open.
  // Open: ignored. Every entry into open records opened_at = now and counts a trip.
  // `retry_after`: what the receiver asked for with the failure (its Retry-After, unclamped);
  // the Open it leads to lasts at least that long (the longest of the failures that tripped
  // it), up to max_retry_after_hold. `why` becomes last_failure() unless the failure is ignored.
  std::optional<breaker_transition> on_failure(
      clock::time_point now, std::chrono::milliseconds retry_after = std::chrono::milliseconds{0},
      breaker_failure why = {});

  // The receiver said the endpoint is gone (410): closed or half-open -> open at once, whatever
  // the failure count; open stays open. Until a probe succeeds the breaker is `gone`: Open lasts
  // gone_probe_interval (forever when it is 0) instead of open_timeout.
  std::optional<breaker_transition> on_gone(clock::time_point now, breaker_failure why = {});

  // Open and now >= next_probe_at(): -> half-open. Otherwise nullopt.
  std::optional<breaker_transition> on_open_timeout(clock::time_point now);

  // While open: when it may go half-open (opened_at + open_timeout, or the Retry-After it
  // opened with if later, or + gone_probe_interval while gone); nullopt while gone with a
  // gone_probe_interval of 0, and when not open.
  [[nodiscard]] std::optional<clock::time_point> next_probe_at() const;
  // A 410 flagged it and no probe succeeded since.
  [[nodiscard]] bool gone() const;
  // The latest failure that counted (in Closed or Half-Open, or a 410): after a move to Open,
  // the one that opened it. Empty before any.
  [[nodiscard]] const breaker_failure& last_failure() const;

  // A half-open permit given back without a result (the record was cancelled).
  void release();

  // When the breaker last opened; clock::time_point{} if it never did.
  [[nodiscard]] clock::time_point opened_at() const;
  // How often the breaker opened.
  [[nodiscard]] std::uint64_t trips() const;
  [[nodiscard]] int consecutive_failures() const;
  [[nodiscard]] const breaker_settings& settings() const;
  // Half-open probes out right now.
  [[nodiscard]] int outstanding_probes() const;
  // Counts transitions. A result that belongs to an earlier generation (a delivery that began
  // before the breaker opened and closed again) says nothing about this one: callers drop it.
  [[nodiscard]] std::uint64_t generation() const;

 private:
  breaker_transition move_to(breaker_state next, clock::time_point now);

  breaker_settings settings_;
  breaker_state state_ = breaker_state::closed;
  int consecutive_failures_ = 0;
  int outstanding_probes_ = 0;
  clock::time_point opened_at_{};
  // The longest Retry-After of this generation's failures.
  std::chrono::milliseconds asked_hold_{0};
  // Open: no probe before this.
  clock::time_point hold_until_{};
  std::uint64_t trips_ = 0;
  std::uint64_t generation_ = 0;
  bool gone_ = false;
  breaker_failure last_failure_;
};

}  // namespace courier
