#pragma once

// courier::metrics — the Prometheus text exposition format 0.0.4 and a lock-free histogram.
// May depend on: nothing of courier's (the admin listener renders the actors' counters with it).

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace courier::metrics {

using labels = std::vector<std::pair<std::string, std::string>>;

enum class family_type : std::uint8_t { counter, gauge, histogram };

// Builds one exposition (text/plain; version=0.0.4) family by family: family() writes the HELP
// and TYPE lines once, sample() one line each. Label values and help texts are escaped as the
// format requires (backslash, double quote, line feed); metric and label names must already be
// valid ([a-zA-Z_:][a-zA-Z0-9_:]*), which the caller's constants guarantee.
class exposition {
 public:
  void family(std::string_view name, std::string_view help, family_type type);
  void sample(std::string_view name, const labels& l, double value);
  void sample(std::string_view name, const labels& l, std::uint64_t value);
  [[nodiscard]] const std::string& text() const { return out_; }

 private:
  void write_labels(const labels& l, std::string_view extra_name = {},
                    std::string_view extra_value = {});
  std::string out_;
};

std::string escape_label_value(std::string_view v);
std::string format_value(double v);  // Prometheus' float text: +Inf, -Inf, NaN, shortest form

// A fixed-bucket histogram that observe() updates with relaxed atomics only: no lock and no
// allocation per observation. Read at scrape time (cumulative buckets, sum, count); a scrape
// racing an observation may see the count one ahead of a bucket, which Prometheus tolerates.
class histogram {
 public:
  static constexpr std::size_t max_buckets = 24;
  // Upper bounds in seconds, increasing; +Inf is implicit.
  explicit histogram(std::vector<double> upper_bounds);

  void observe(double seconds);

  // Writes <name>_bucket{...,le="..."}, <name>_sum and <name>_count with the given labels.
  void render(exposition& e, std::string_view name, const labels& l) const;

  [[nodiscard]] std::uint64_t count() const { return count_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::array<std::atomic<std::uint64_t>, max_buckets + 1> buckets_{};  // the last one is +Inf
  std::atomic<std::uint64_t> count_{0};
  std::atomic<std::uint64_t> sum_micros_{0};
};

// Latency buckets up to `ceiling_seconds`: the Prometheus client libraries' default series
// (5 ms, 10 ms, 25 ms, 50 ms, 100 ms, ... 10 s), continued in the same 1-2.5-5 steps, and the
// ceiling itself as the last bound (an HTTP attempt never takes longer than its timeout). 50 ms
// and 100 ms are bounds, so a latency objective there reads off one bucket, not an interpolation.
std::vector<double> latency_buckets(double ceiling_seconds);

}  // namespace courier::metrics
