#include "core/flow/partition_book.hpp"

#include <algorithm>
#include <utility>

namespace courier {

partition_book::partition_book(const partition_book_settings& s, const done_offsets& seed,
                               std::int64_t now_ms)
    : settings_(s), head_{s.head_of_line_records, s.head_of_line_age_ms} {
  tracker_.seed(seed);
  (void)head_.check(tracker_, now_ms);
}

// Distinct by role: the record's offset and the time it finished.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
bool partition_book::finish(std::int64_t offset, std::int64_t now_ms) {
  if (withheld_.count(offset) != 0 || !tracker_.complete(offset)) {
    return false;
  }
  const auto& in_flight = tracker_.in_flight_offsets();
  while (!taken_at_.empty() && in_flight.count(taken_at_.front().first) == 0) {
    taken_at_.pop_front();
  }
  if (awaiting_receipt_.erase(offset) == 0) {
    returned(offset, now_ms);
  }
  return true;
}

bool partition_book::awaiting_receipt(std::int64_t offset, std::int64_t now_ms) {
  if (withheld_.count(offset) != 0 || tracker_.in_flight_offsets().count(offset) == 0 ||
      !awaiting_receipt_.insert(offset).second) {
    return false;
  }
  returned(offset, now_ms);
  return true;
}

// Distinct by role, as finish().
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
void partition_book::returned(std::int64_t offset, std::int64_t now_ms) {
  if (handed_out_ > 0) {
    --handed_out_;
  }
  const auto sent = sent_ms_.find(offset);
  if (sent != sent_ms_.end()) {
    constexpr double weight = 0.1;  // of the newest record: the mean follows a change in tens
    const auto took = static_cast<double>(std::max<std::int64_t>(1, now_ms - sent->second));
    pool_ms_ = pool_ms_ ? (1 - weight) * *pool_ms_ + weight * took : took;
    sent_ms_.erase(sent);
  }
}

std::size_t partition_book::outstanding() const {
  return tracker_.in_flight() - withheld_.size() - overflowed_.size() - held_.size();
}

bool partition_book::at_own_bound() const {
  return settings_.own_bound != 0 && handed_out_ >= settings_.own_bound;
}

std::optional<record> partition_book::release_held() {
  if (held_.empty() || at_own_bound()) {
    return std::nullopt;
  }
  auto r = std::move(held_.front());
  held_.pop_front();
  return r;
}

void partition_book::dispatched(std::int64_t offset, std::int64_t now_ms) {
  ++handed_out_;
  if (settings_.own_bound != 0) {
    sent_ms_[offset] = now_ms;
  }
}

std::optional<bool> partition_book::backpressure() const {
  if (settings_.own_bound == 0) {
    return std::nullopt;
  }
  const auto large = large_hold();
  if (held_.size() >= large) {
    return true;
  }
  if (held_.size() <= large / 2) {
    return false;
  }
  return std::nullopt;
}

std::size_t partition_book::large_hold() const {
  std::size_t two_seconds = 0;
  if (pool_ms_) {
    constexpr double seconds = 2.0;
    two_seconds = static_cast<std::size_t>(seconds * 1000.0 *
                                           static_cast<double>(settings_.own_bound) / *pool_ms_);
  }
  return std::max<std::size_t>({1, settings_.route_bound, two_seconds});
}

bool partition_book::head_held() const {
  const auto head = tracker_.head();
  if (!head) {
    return false;
  }
  return (!overflowed_.empty() && overflowed_.front() == *head) ||
         (!held_.empty() && held_.front().offset == *head);
}

void partition_book::woke(std::int64_t now_ms, std::optional<std::int64_t> armed_for_ms) {
  if (wake_armed_ms_ && (now_ms >= *wake_armed_ms_ || armed_for_ms == wake_armed_ms_)) {
    // That timer fired (early by a wall clock set back, if it was the one armed for it): no
    // earlier one is pending any more, and the next arm_wake arms the next.
    wake_armed_ms_.reset();
  }
}

// One pending wake per partition at most, for the earlier of its gate's next due time and its
// head's age deadline: no timer per record.
std::optional<std::int64_t> partition_book::arm_wake(std::optional<std::int64_t> due,
                                                     bool head_waiting) {
  std::optional<std::int64_t> at;
  if (due) {
    at = *due + 1;
  }
  if (auto deadline = head_.age_deadline_ms(); deadline && !head_waiting) {
    at = at ? std::min(*at, *deadline) : *deadline;
  }
  if (!at || (wake_armed_ms_ && *wake_armed_ms_ <= *at)) {
    return std::nullopt;
  }
  wake_armed_ms_ = at;
  return at;
}

bool partition_book::set_blocked(std::int64_t offset, bool on) {
  if (on) {
    blocked_.insert(offset);
  } else {
    blocked_.erase(offset);
  }
  return !blocked_.empty();
}

bool partition_book::begin_revoke() {
  if (revoking_) {
    return false;
  }
  revoking_ = true;
  return true;
}

std::size_t partition_book::withhold_held() {
  overflowed_.clear();
  for (const auto& r : held_) {
    withheld_.insert(r.offset);
  }
  const auto n = held_.size();
  held_.clear();
  return n;
}

std::set<std::int64_t> partition_book::handed_out_offsets() const {
  std::set<std::int64_t> out;
  for (const auto offset : tracker_.in_flight_offsets()) {
    if (withheld_.count(offset) == 0) {
      out.insert(offset);
    }
  }
  return out;
}

std::optional<std::int64_t> partition_book::paused_since(bool paused, std::int64_t now_ms) {
  if (!paused) {
    paused_since_ms_.reset();
  } else if (!paused_since_ms_) {
    paused_since_ms_ = now_ms;
  }
  return paused_since_ms_;
}

}  // namespace courier
