#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace courier {

// The failed offset commits of a route's consumer, as its log tells them. Through a broker
// outage every commit fails (the coordinator is away: _WAIT_COORD, _TRANSPORT), and courier
// commits on a cadence and after every burst of finished records, so one line per failed
// commit would be dozens a second. A run of failures takes one line when it starts, at most one
// per `interval` while it lasts (with the partitions' failed commits since the line before),
// and one when a commit is taken again (with the run's total and length). The commits are
// retried on the consumer's cadence either way; each failure is still counted in the metrics.
//
// Pure: the consumer actor reports each commit's answers and logs what this returns.
class commit_failures {
 public:
  explicit commit_failures(std::int64_t interval_ms) : interval_ms_(interval_ms) {}

  struct line {
    enum class kind : std::uint8_t {
      started,     // the first failure of a run
      continuing,  // the run goes on: `failed` since the last line
      recovered,   // a commit was taken again: `failed` in the whole run
    };
    kind what = kind::started;
    std::uint64_t failed = 0;  // partition commits refused (see `what`)
    std::int64_t run_ms = 0;   // since the run's first failure
  };

  // A commit's answers refused `partitions` partitions' commits (at least one) at `now_ms`.
  std::optional<line> failed(std::size_t partitions, std::int64_t now_ms);
  // A commit's answers took at least one partition's commit and refused none.
  std::optional<line> succeeded(std::int64_t now_ms);

  [[nodiscard]] bool in_run() const { return run_started_ms_.has_value(); }

 private:
  std::int64_t interval_ms_;
  std::optional<std::int64_t> run_started_ms_;
  std::int64_t last_line_ms_ = 0;
  std::uint64_t since_line_ = 0;  // failed since the last line
  std::uint64_t in_run_ = 0;      // failed in the run
};

}  // namespace courier
