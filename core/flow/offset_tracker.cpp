#include "core/flow/offset_tracker.hpp"

namespace courier {

offset_tracker::track_result offset_tracker::track(std::int64_t offset) {
  if (last_tracked_ && offset <= *last_tracked_) {
    return track_result::duplicate;
  }
  last_tracked_ = offset;
  if (!first_tracked_) {
    first_tracked_ = offset;
  }
  if (!seeded_.empty()) {
    const bool done = seeded_.contains(offset);
    seeded_.erase_below(offset + 1);
    if (done) {
      return track_result::already_done;
    }
  }
  // Offsets only grow, so the hint makes every insert amortised constant time.
  in_flight_.insert(in_flight_.end(), offset);
  return track_result::tracked;
}

void offset_tracker::seed(const done_offsets& done) {
  for (const auto& [begin, end] : done.runs()) {
    seeded_.add(begin, end);
  }
  if (last_tracked_) {
    seeded_.erase_below(*last_tracked_ + 1);
  }
}

bool offset_tracker::complete(std::int64_t offset) { return in_flight_.erase(offset) == 1; }

bool offset_tracker::known_done(std::int64_t offset) const {
  if (last_tracked_ && offset <= *last_tracked_) {
    return in_flight_.count(offset) == 0;
  }
  return seeded_.contains(offset);
}

std::optional<std::int64_t> offset_tracker::committable() const {
  if (!in_flight_.empty()) {
    return *in_flight_.begin();
  }
  if (last_tracked_) {
    return *last_tracked_ + 1;
  }
  return std::nullopt;
}

done_offsets offset_tracker::done_above_commit() const {
  done_offsets done = seeded_;
  if (!last_tracked_) {
    return done;
  }
  const std::int64_t horizon = *last_tracked_ + 1;
  std::optional<std::int64_t> previous;
  for (const auto offset : in_flight_) {
    if (previous && offset > *previous + 1) {
      done.add(*previous + 1, offset);
    }
    previous = offset;
  }
  if (previous && horizon > *previous + 1) {
    done.add(*previous + 1, horizon);
  }
  return done;
}

std::size_t offset_tracker::in_flight() const { return in_flight_.size(); }

std::optional<std::int64_t> offset_tracker::head() const {
  if (in_flight_.empty()) {
    return std::nullopt;
  }
  return *in_flight_.begin();
}

std::optional<std::int64_t> offset_tracker::last_tracked() const { return last_tracked_; }

}  // namespace courier
