#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace courier::log {

// Keeps a per-record event from flooding the log during an outage: per (route, event), the
// first `limit` events of each `window` are logged and the rest suppressed; the first event
// logged after a window that suppressed some carries how many (`suppressed`). The metrics
// count every record; the log shows a sample. Pure: the caller passes the time.
class event_sampler {
 public:
  using clock = std::chrono::steady_clock;

  struct verdict {
    bool log = false;
    // Events of this key suppressed since the last one logged (0: none); with `log`.
    std::uint64_t suppressed = 0;
  };

  event_sampler(std::size_t limit, clock::duration window);

  verdict admit(const std::string& route, const std::string& event, clock::time_point now);

 private:
  struct key_state {
    clock::time_point window_start;
    std::size_t logged = 0;        // in the current window
    std::uint64_t suppressed = 0;  // since the last event logged
  };

  std::size_t limit_;
  clock::duration window_;
  std::map<std::pair<std::string, std::string>, key_state> keys_;
};

}  // namespace courier::log
