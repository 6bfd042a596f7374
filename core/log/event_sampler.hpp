#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

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
    // Without `log`: this is the key's first suppressed event since its last line, so the
    // caller should come back with flush() once `window` has passed.
    bool first_suppressed = false;
  };

  // A count no later event carried: `suppressed` events of (route, event) since its last line.
  struct held_back {
    std::string route;
    std::string event;
    std::uint64_t suppressed = 0;
  };

  event_sampler(std::size_t limit, clock::duration window);

  verdict admit(const std::string& route, const std::string& event, clock::time_point now);

  // The keys whose window with suppressed events has ended by `now` and no event since carried
  // the count: each is returned once (its count goes to zero), so a burst followed by silence
  // still tells how much it held back.
  std::vector<held_back> flush(clock::time_point now);

  [[nodiscard]] clock::duration window() const { return window_; }

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
