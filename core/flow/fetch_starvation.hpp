#pragma once

#include <cstdint>
#include <optional>

namespace courier {

// Tells when a route starves for records that Kafka holds: the poll loop had room for records
// and got none for much of a statistics interval, while the route's source partitions lagged
// well behind at both ends of it. librdkafka 2.0.2 does that silently: once its queue holds
// queued.max.messages.kbytes (or queued.min.messages records) it stops fetching, and with no
// fetch in flight its broker thread looks again only a second later, so a prefetch smaller than
// a second of deliveries (records of a few KiB at courier's 32 MiB) starves the route for the
// rest of each second (docs/performance.md, "Record size"). A paused source partition (breaker,
// shutdown, ...) is a wait courier chose: the caller leaves those polls out, and a window in
// which one was paused or resumed is not judged (a resumed partition is fetched anew, which
// takes librdkafka about a second, however small its records). A retry tier waiting for its
// due record is routine and does not count.
//
// Pure: the consumer actor reports its empty polls and each statistics snapshot (every
// statistics.interval.ms), and logs and counts what this returns.
class fetch_starvation {
 public:
  // `lag_threshold`: the summed lag (records) above which the partitions count as behind;
  // `share`: the part of a window spent waiting that counts as starving.
  explicit fetch_starvation(std::int64_t lag_threshold, double share = 0.25);

  // A poll with room on the route and no source partition paused waited `waited_ms` and
  // brought nothing.
  void on_empty_poll(std::int64_t waited_ms);

  // At `now_ms` a source partition is paused, or was paused or resumed: the window that holds
  // it is no starvation, nor the next one if it came less than resume_refetch_ms before that.
  void on_source_paused(std::int64_t now_ms);
  // How long librdkafka 2.0.2 takes to fetch a resumed partition again (about a second).
  static constexpr std::int64_t resume_refetch_ms = 1'000;

  struct verdict {
    std::int64_t window_ms = 0;   // since the previous snapshot
    std::int64_t starved_ms = 0;  // of it spent in empty polls
    std::int64_t lag = 0;         // the lower of the lags at its two ends
  };
  // A statistics snapshot: the source partitions' summed lag at `now_ms` (negative: unknown).
  // A verdict when the window since the previous snapshot starved; each snapshot starts a new
  // window.
  [[nodiscard]] std::optional<verdict> on_stats(std::int64_t now_ms, std::int64_t lag);

 private:
  std::int64_t lag_threshold_;
  double share_;
  std::optional<std::int64_t> window_start_ms_;
  std::int64_t window_start_lag_ = -1;
  std::int64_t starved_ms_ = 0;
  std::optional<std::int64_t> source_paused_ms_;  // the latest on_source_paused()
};

}  // namespace courier
