#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/delivery/breaker.hpp"

namespace courier {

// routes[].auto_redrive: when the route's breaker has been Closed for `after` following an Open
// period, the DLQ records of a transient class that were dead-lettered during that period or
// `lookback` before it are redriven, at most `rate` a second and `max` an event.
struct auto_redrive_settings {
  std::chrono::milliseconds after{std::chrono::minutes{5}};
  std::chrono::milliseconds lookback{std::chrono::minutes{5}};
  // courier.error.class values (core/delivery/status_classifier): the answers and failures that
  // say the partner was down, not that it refused the record.
  std::vector<std::string> classes{"http_5xx", "http_503", "http_429", "timeout",
                                   "connect",  "reset",    "tls"};
  double rate = 50;         // records per second
  std::size_t max = 10000;  // records per event
};

// One auto-redrive event: the DLQ records dead-lettered in [since_ms, until_ms) (Unix ms) of the
// configured classes are to be redriven.
struct auto_redrive_event {
  std::uint64_t id = 0;  // 1 for the route's first event since start
  std::int64_t open_since_ms = 0;
  std::int64_t since_ms = 0;
  std::int64_t until_ms = 0;
};

// When a route redrives by itself, as a plain state machine its actor drives with the breaker's
// changes and the wall clock (Unix ms):
//
//   idle --Open--> open --Closed--> armed --`after` passed--> running --finished--> idle
//
// A breaker that opens again while armed goes back to open and keeps the first opening (one
// outage that flapped is one event). A breaker that opens while a run is under way asks the
// run to stop (the partner is down again: what it would move would only come back); once the
// run ended, the new Open period is the next event's. `cancel` (the operator's stop) drops an
// armed event, or asks a running one to stop.
class auto_redrive_trigger {
 public:
  enum class phase : std::uint8_t { idle, open, armed, running };

  explicit auto_redrive_trigger(auto_redrive_settings settings);

  struct reaction {
    std::optional<std::int64_t> check_at;  // armed: call due() then
    bool stop_run = false;                 // a run is under way and must stop
  };
  reaction on_breaker(breaker_state to, std::int64_t now_ms);

  // The event, once armed and `after` has passed since the close; the trigger is running then.
  std::optional<auto_redrive_event> due(std::int64_t now_ms);

  // The running event ended (done, stopped or failed). When the breaker opened during the run
  // and is Closed again by now, the next event is armed: call due() at the time returned.
  std::optional<std::int64_t> finished(std::int64_t now_ms);

  // The operator's stop: true when there was an armed or running event to stop.
  struct cancelled {
    bool dropped_armed = false;
    bool stop_run = false;
  };
  cancelled cancel();

  // What an event would select if it fired at `now_ms` (armed, or open: the period so far);
  // nothing when no Open period is known.
  [[nodiscard]] std::optional<auto_redrive_event> preview(std::int64_t now_ms) const;

  [[nodiscard]] phase current() const { return phase_; }
  [[nodiscard]] std::optional<std::int64_t> due_at() const { return due_at_; }
  [[nodiscard]] std::optional<std::int64_t> open_since() const { return open_since_; }
  [[nodiscard]] std::uint64_t events() const { return events_; }
  [[nodiscard]] const auto_redrive_settings& settings() const { return settings_; }

 private:
  [[nodiscard]] auto_redrive_event event_at(std::uint64_t id, std::int64_t now_ms) const;

  auto_redrive_settings settings_;
  phase phase_ = phase::idle;
  std::optional<std::int64_t> open_since_;
  std::optional<std::int64_t> due_at_;
  // The breaker opened while a run was under way: the next Open period began then.
  std::optional<std::int64_t> reopened_at_;
  breaker_state breaker_ = breaker_state::closed;
  std::uint64_t events_ = 0;
};

std::string_view to_string(auto_redrive_trigger::phase p);

}  // namespace courier
