#include "core/flow/offset_tracker.hpp"

namespace courier {

bool offset_tracker::track(std::int64_t offset) {
  if (last_tracked_ && offset <= *last_tracked_) {
    return false;
  }
  // Offsets only grow, so the hint makes every insert amortised constant time.
  in_flight_.insert(in_flight_.end(), offset);
  last_tracked_ = offset;
  return true;
}

bool offset_tracker::complete(std::int64_t offset) { return in_flight_.erase(offset) == 1; }

std::optional<std::int64_t> offset_tracker::committable() const {
  if (!in_flight_.empty()) {
    return *in_flight_.begin();
  }
  if (last_tracked_) {
    return *last_tracked_ + 1;
  }
  return std::nullopt;
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
