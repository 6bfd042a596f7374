#pragma once

// A process's resident memory, read from /proc/<pid>/status (Linux): how a test shows that
// something costs bounded memory. VmRSS is the resident set now, VmHWM its peak. By default the
// test's own process (/proc/self); a child of the same user (a `courier run`) by its pid.

#include <sys/types.h>

#include <cstddef>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace courier::testing {

// The /proc directory of `pid`.
inline std::string proc_dir_of(pid_t pid) { return "/proc/" + std::to_string(pid); }

// A field of <proc_dir>/status in KiB ("VmRSS", "VmHWM"); nothing when it cannot be read.
inline std::optional<std::size_t> status_kib(std::string_view field,
                                             const std::string& proc_dir = "/proc/self") {
  std::ifstream status{proc_dir + "/status"};
  std::string line;
  while (std::getline(status, line)) {
    if (line.size() > field.size() && line.compare(0, field.size(), field) == 0 &&
        line[field.size()] == ':') {
      std::istringstream value{line.substr(field.size() + 1)};
      std::size_t kib = 0;
      if (value >> kib) {
        return kib;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// Resets VmHWM to the current VmRSS (writing "5" to <proc_dir>/clear_refs, Linux 4.0 and
// later). False when the kernel refuses: the peak then still counts from the process's start.
inline bool reset_peak_rss(const std::string& proc_dir = "/proc/self") {
  std::ofstream clear_refs{proc_dir + "/clear_refs"};
  clear_refs << "5";
  clear_refs.flush();
  return clear_refs.good();
}

// Sanitizers keep shadow memory and a quarantine of freed blocks, so their RSS is not the
// code's; a bound on RSS growth allows for that under them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool rss_under_sanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool rss_under_sanitizer = true;
#else
inline constexpr bool rss_under_sanitizer = false;
#endif
#else
inline constexpr bool rss_under_sanitizer = false;
#endif

// The peak growth of the resident set from construction on: the peak is reset and the
// baseline is the resident set at that moment. Where the reset is refused, the peak counts
// from the process's start, so the growth reads high, never low (and describe() says so).
class peak_rss_growth {
 public:
  explicit peak_rss_growth(std::string proc_dir = "/proc/self")
      : proc_dir_(std::move(proc_dir)),
        peak_reset_(reset_peak_rss(proc_dir_)),
        baseline_kib_(status_kib("VmRSS", proc_dir_)) {}

  // False when the status has no VmRSS/VmHWM (not Linux, or the process is gone): nothing was
  // measured.
  bool measured() const {
    return baseline_kib_.has_value() && status_kib("VmHWM", proc_dir_).has_value();
  }

  std::size_t baseline_kib() const { return baseline_kib_.value_or(0); }

  std::size_t growth_kib() const {
    const std::size_t peak = status_kib("VmHWM", proc_dir_).value_or(0);
    return peak > baseline_kib() ? peak - baseline_kib() : 0;
  }

  bool peak_was_reset() const { return peak_reset_; }

  // "peak RSS +1.4 MiB over a 9.8 MiB baseline", with a note when the peak was not reset.
  std::string describe() const {
    std::ostringstream out;
    out.precision(1);
    out << std::fixed << "peak RSS +" << static_cast<double>(growth_kib()) / 1024.0
        << " MiB over a " << static_cast<double>(baseline_kib()) / 1024.0 << " MiB baseline";
    if (!peak_reset_) {
      out << " (clear_refs refused: the peak counts from the process's start)";
    }
    return out.str();
  }

 private:
  std::string proc_dir_;
  bool peak_reset_;
  std::optional<std::size_t> baseline_kib_;
};

}  // namespace courier::testing
