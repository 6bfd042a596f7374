#pragma once

// The resident memory of another process (a `courier run` child), read from
// /proc/<pid>/status: tests/support/rss.hpp's peak_rss_growth, for a process that is not the
// test's own. Its peak (VmHWM) is reset through /proc/<pid>/clear_refs, which a parent may
// write for a child of the same user.

#include <sys/types.h>

#include <cstddef>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace courier::testing {

// A field of /proc/<pid>/status in KiB ("VmRSS", "VmHWM"); nothing when it cannot be read.
inline std::optional<std::size_t> status_kib_of(pid_t pid, std::string_view field) {
  std::ifstream status{"/proc/" + std::to_string(pid) + "/status"};
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

// The peak growth of `pid`'s resident set from construction on: its peak is reset and the
// baseline is its resident set at that moment. Where the reset is refused, the peak counts from
// the process's start, so the growth reads high, never low (and describe() says so).
class process_peak_rss_growth {
 public:
  explicit process_peak_rss_growth(pid_t pid)
      : pid_(pid), peak_reset_(reset(pid)), baseline_kib_(status_kib_of(pid, "VmRSS")) {}

  // False when /proc/<pid>/status has no VmRSS/VmHWM (not Linux, or the process is gone).
  [[nodiscard]] bool measured() const {
    return baseline_kib_.has_value() && status_kib_of(pid_, "VmHWM").has_value();
  }

  [[nodiscard]] std::size_t baseline_kib() const { return baseline_kib_.value_or(0); }

  [[nodiscard]] std::size_t growth_kib() const {
    const std::size_t peak = status_kib_of(pid_, "VmHWM").value_or(0);
    return peak > baseline_kib() ? peak - baseline_kib() : 0;
  }

  // "peak RSS +1.4 MiB over a 30.2 MiB baseline", with a note when the peak was not reset.
  [[nodiscard]] std::string describe() const {
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
  static bool reset(pid_t pid) {
    std::ofstream clear_refs{"/proc/" + std::to_string(pid) + "/clear_refs"};
    clear_refs << "5";
    clear_refs.flush();
    return clear_refs.good();
  }

  pid_t pid_;
  bool peak_reset_;
  std::optional<std::size_t> baseline_kib_;
};

}  // namespace courier::testing
