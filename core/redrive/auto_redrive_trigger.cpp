#include "core/redrive/auto_redrive_trigger.hpp"

#include <utility>

namespace courier {

auto_redrive_trigger::auto_redrive_trigger(auto_redrive_settings settings)
    : settings_(std::move(settings)) {}

auto_redrive_trigger::reaction auto_redrive_trigger::on_breaker(breaker_state to,
                                                                std::int64_t now_ms) {
  reaction r;
  breaker_ = to;
  switch (to) {
    case breaker_state::open:
    case breaker_state::half_open:
      switch (phase_) {
        case phase::idle:
          open_since_ = now_ms;
          phase_ = phase::open;
          break;
        case phase::armed:
          due_at_.reset();  // the same outage goes on: it keeps its first opening
          phase_ = phase::open;
          break;
        case phase::open:
          break;
        case phase::running:
          if (!reopened_at_) {
            reopened_at_ = now_ms;
            r.stop_run = true;
          }
          break;
      }
      break;
    case breaker_state::closed:
      switch (phase_) {
        case phase::open:
          due_at_ = now_ms + settings_.after.count();
          phase_ = phase::armed;
          r.check_at = due_at_;
          break;
        case phase::running:  // a stopped run winds down: finished() arms the next event
        case phase::idle:
        case phase::armed:
          break;
      }
      break;
  }
  return r;
}

// The event's number, then the time it fires.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
auto_redrive_event auto_redrive_trigger::event_at(std::uint64_t id, std::int64_t now_ms) const {
  auto_redrive_event e;
  e.id = id;
  e.open_since_ms = open_since_.value_or(now_ms);
  e.since_ms = e.open_since_ms - settings_.lookback.count();
  e.until_ms = now_ms;
  return e;
}

std::optional<auto_redrive_event> auto_redrive_trigger::due(std::int64_t now_ms) {
  if (phase_ != phase::armed || !due_at_ || now_ms < *due_at_) {
    return std::nullopt;
  }
  phase_ = phase::running;
  due_at_.reset();
  return event_at(++events_, now_ms);
}

std::optional<std::int64_t> auto_redrive_trigger::finished(std::int64_t now_ms) {
  if (phase_ != phase::running) {
    return std::nullopt;
  }
  if (!reopened_at_) {
    open_since_.reset();
    phase_ = phase::idle;
    return std::nullopt;
  }
  open_since_ = reopened_at_;
  reopened_at_.reset();
  phase_ = phase::open;
  if (breaker_ == breaker_state::closed) {
    return on_breaker(breaker_state::closed, now_ms).check_at;
  }
  return std::nullopt;
}

auto_redrive_trigger::cancelled auto_redrive_trigger::cancel() {
  cancelled c;
  switch (phase_) {
    case phase::armed:
      c.dropped_armed = true;
      due_at_.reset();
      open_since_.reset();
      phase_ = phase::idle;
      break;
    case phase::running:
      c.stop_run = true;
      break;
    case phase::idle:
    case phase::open:
      break;
  }
  return c;
}

std::optional<auto_redrive_event> auto_redrive_trigger::preview(std::int64_t now_ms) const {
  if (!open_since_) {
    return std::nullopt;
  }
  return event_at(events_ + 1, now_ms);
}

std::string_view to_string(auto_redrive_trigger::phase p) {
  switch (p) {
    case auto_redrive_trigger::phase::idle:
      return "idle";
    case auto_redrive_trigger::phase::open:
      return "open";
    case auto_redrive_trigger::phase::armed:
      return "armed";
    case auto_redrive_trigger::phase::running:
      return "running";
  }
  return "unknown";
}

}  // namespace courier
