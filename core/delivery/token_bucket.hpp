#pragma once

// A partner's request quota as a token bucket (routes[].rate_limit): `requests_per_second`
// tokens a second, at most `burst` saved up. Pure: time comes in with every call.

#include <chrono>

namespace courier {

// routes[].rate_limit, its defaults declared once (core/config's rate_limit_config is this).
struct rate_limit_settings {
  double requests_per_second = 0;  // > 0
  double burst = 0;                // 0: one second of requests (at least 1)

  // The burst in effect: `burst`, or one second of requests; never below one request.
  [[nodiscard]] double effective_burst() const;
};

class token_bucket {
 public:
  using time_point = std::chrono::system_clock::time_point;

  // Full at the start: a route may send its burst at once. `size.burst` is taken as it is
  // (at least 1), not as "one second of requests" when 0: the caller says what it wants.
  token_bucket(const rate_limit_settings& size, time_point now);

  // Takes one token if there is one.
  bool try_take(time_point now);

  // How long until a token is there (zero when there is one now).
  [[nodiscard]] std::chrono::microseconds until_next(time_point now) const;

  // A new rate and burst (this instance's share of the quota changed): the tokens earned so far
  // at the old rate are kept, capped at the new burst.
  void set_rate(const rate_limit_settings& size, time_point now);

  [[nodiscard]] double rate() const { return rate_; }
  [[nodiscard]] double burst() const { return burst_; }

 private:
  void refill(time_point now);
  [[nodiscard]] double tokens_at(time_point now) const;

  double rate_;
  double burst_;
  double tokens_;
  time_point at_;  // when tokens_ was right; a clock that goes back earns nothing
};

// The share of a route's quota one instance takes: its assigned source partitions over the
// topic's (2 of 8: a quarter). Unknown counts (0) or no assignment yet: the whole quota.
double quota_share(int assigned_partitions, int topic_partitions);

}  // namespace courier
