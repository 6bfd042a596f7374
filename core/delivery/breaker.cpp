#include "core/delivery/breaker.hpp"

#include <algorithm>
#include <utility>

namespace courier {

std::string_view to_string(breaker_state state) {
  switch (state) {
    case breaker_state::closed:
      return "closed";
    case breaker_state::open:
      return "open";
    case breaker_state::half_open:
      return "half_open";
  }
  return "unknown";
}

breaker::breaker(breaker_settings settings) : settings_(settings) {
  settings_.trip_after = std::max(settings_.trip_after, 1);
  settings_.half_open_max_requests = std::max(settings_.half_open_max_requests, 1);
}

breaker_state breaker::state() const { return state_; }

bool breaker::try_acquire(clock::time_point /*now*/) {
  switch (state_) {
    case breaker_state::closed:
      return true;
    case breaker_state::open:
      return false;
    case breaker_state::half_open:
      if (outstanding_probes_ >= settings_.half_open_max_requests) {
        return false;
      }
      ++outstanding_probes_;
      return true;
  }
  return false;
}

std::optional<breaker_transition> breaker::on_success(clock::time_point now) {
  switch (state_) {
    case breaker_state::closed:
      consecutive_failures_ = 0;
      return std::nullopt;
    case breaker_state::open:
      return std::nullopt;
    case breaker_state::half_open:
      return move_to(breaker_state::closed, now);
  }
  return std::nullopt;
}

std::optional<breaker_transition> breaker::on_failure(clock::time_point now,
                                                      std::chrono::milliseconds retry_after,
                                                      breaker_failure why) {
  const auto open_with_hold = [&] {
    const auto hold = std::min(std::max(asked_hold_, retry_after), settings_.max_retry_after_hold);
    const auto t = move_to(breaker_state::open, now);
    hold_until_ = now + hold;
    return t;
  };
  switch (state_) {
    case breaker_state::closed:
      last_failure_ = std::move(why);
      ++consecutive_failures_;
      asked_hold_ = std::max(asked_hold_, retry_after);
      if (consecutive_failures_ >= settings_.trip_after) {
        return open_with_hold();
      }
      return std::nullopt;
    case breaker_state::open:
      return std::nullopt;
    case breaker_state::half_open:
      last_failure_ = std::move(why);
      return open_with_hold();
  }
  return std::nullopt;
}

std::optional<breaker_transition> breaker::on_gone(clock::time_point now, breaker_failure why) {
  gone_ = true;
  last_failure_ = std::move(why);
  switch (state_) {
    case breaker_state::closed:
    case breaker_state::half_open:
      return move_to(breaker_state::open, now);
    case breaker_state::open:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<breaker_transition> breaker::on_open_timeout(clock::time_point now) {
  const auto due = next_probe_at();
  if (!due || now < *due) {
    return std::nullopt;
  }
  return move_to(breaker_state::half_open, now);
}

std::optional<breaker::clock::time_point> breaker::next_probe_at() const {
  switch (state_) {
    case breaker_state::closed:
    case breaker_state::half_open:
      return std::nullopt;
    case breaker_state::open:
      if (!gone_) {
        return std::max(opened_at_ + settings_.open_timeout, hold_until_);
      }
      if (settings_.gone_probe_interval.count() <= 0) {
        return std::nullopt;
      }
      return opened_at_ + settings_.gone_probe_interval;
  }
  return std::nullopt;
}

bool breaker::gone() const { return gone_; }

const breaker_failure& breaker::last_failure() const { return last_failure_; }

void breaker::release() {
  if (state_ == breaker_state::half_open && outstanding_probes_ > 0) {
    --outstanding_probes_;
  }
}

breaker::clock::time_point breaker::opened_at() const { return opened_at_; }

std::uint64_t breaker::trips() const { return trips_; }

int breaker::consecutive_failures() const { return consecutive_failures_; }

const breaker_settings& breaker::settings() const { return settings_; }

int breaker::outstanding_probes() const { return outstanding_probes_; }

std::uint64_t breaker::generation() const { return generation_; }

breaker_transition breaker::move_to(breaker_state next, clock::time_point now) {
  const breaker_transition t{state_, next};
  state_ = next;
  ++generation_;
  // A new generation: counts from the previous state say nothing about this one.
  consecutive_failures_ = 0;
  outstanding_probes_ = 0;
  asked_hold_ = std::chrono::milliseconds{0};
  hold_until_ = now;
  if (next == breaker_state::closed) {
    gone_ = false;  // a probe got through: the endpoint is back
  }
  if (next == breaker_state::open) {
    opened_at_ = now;
    ++trips_;
  }
  return t;
}

breaker_state joint_state(const std::vector<breaker_state>& known, std::size_t count) {
  if (known.size() < count) {
    return breaker_state::closed;
  }
  bool all_open = true;
  for (const auto s : known) {
    switch (s) {
      case breaker_state::closed:
        return breaker_state::closed;
      case breaker_state::half_open:
        all_open = false;
        break;
      case breaker_state::open:
        break;
    }
  }
  return all_open ? breaker_state::open : breaker_state::half_open;
}

}  // namespace courier
