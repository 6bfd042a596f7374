#pragma once

// Retries as a share of first attempts (routes[].retry_budget; Finagle's RetryBudget, gRPC's
// and Envoy's retry budgets): over a sliding window, retries may be at most `ratio` of the
// first attempts plus `min_per_second` for every second of the window, so a quiet route can
// still retry and a failing partner gets no more than (1 + ratio) times its load. Pure: time
// comes in with every call.

#include <chrono>
#include <cstdint>
#include <vector>

namespace courier {

// routes[].retry_budget, its defaults declared once (core/config's retry_budget_config is this).
struct retry_budget_settings {
  double ratio = 0.2;
  std::chrono::milliseconds window{10000};
  double min_per_second = 10;
};

class retry_budget {
 public:
  using time_point = std::chrono::system_clock::time_point;

  // The window is kept in slices of a tenth of a second (at most window / 100 ms of them).
  explicit retry_budget(const retry_budget_settings& s);

  void note_first(time_point now);
  void note_retry(time_point now);
  // Whether one more retry now stays within the budget.
  [[nodiscard]] bool may_retry(time_point now);

  [[nodiscard]] std::uint64_t firsts(time_point now);
  [[nodiscard]] std::uint64_t retries(time_point now);

 private:
  struct slice {
    std::uint64_t firsts = 0;
    std::uint64_t retries = 0;
  };
  void advance(time_point now);
  slice& current(time_point now);

  retry_budget_settings settings_;
  std::chrono::milliseconds slice_length_;
  std::vector<slice> slices_;
  std::int64_t head_ = -1;  // index (in slices since the epoch) of the newest slice
  slice total_;
};

}  // namespace courier
