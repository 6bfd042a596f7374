#include "core/delivery/token_bucket.hpp"

#include <algorithm>
#include <cmath>

namespace courier {
namespace {

// A token within a thousandth of whole counts: the timer set for it may find the clock a
// microsecond short (until_next waits for a whole one; a thousandth of a request is lost at most).
constexpr double whole = 1.0 - 1e-3;

}  // namespace

double rate_limit_settings::effective_burst() const {
  return std::max(1.0, burst > 0 ? burst : requests_per_second);
}

token_bucket::token_bucket(const rate_limit_settings& size, time_point now)
    : rate_(size.requests_per_second),
      burst_(std::max(1.0, size.burst)),
      tokens_(burst_),
      at_(now) {}

double token_bucket::tokens_at(time_point now) const {
  if (now <= at_) {
    return tokens_;
  }
  const double earned = std::chrono::duration<double>(now - at_).count() * rate_;
  return std::min(burst_, tokens_ + earned);
}

void token_bucket::refill(time_point now) {
  tokens_ = tokens_at(now);
  at_ = std::max(at_, now);
}

bool token_bucket::try_take(time_point now) {
  refill(now);
  if (tokens_ < whole) {
    return false;
  }
  tokens_ = std::max(0.0, tokens_ - 1.0);
  return true;
}

std::chrono::microseconds token_bucket::until_next(time_point now) const {
  const double missing = 1.0 - tokens_at(now);
  if (missing <= 0 || rate_ <= 0) {
    return std::chrono::microseconds{0};
  }
  // Rounded up, so that a timer set for it finds the token there.
  return std::chrono::microseconds{static_cast<std::int64_t>(std::ceil(missing / rate_ * 1e6))};
}

void token_bucket::set_rate(const rate_limit_settings& size, time_point now) {
  refill(now);
  rate_ = size.requests_per_second;
  burst_ = std::max(1.0, size.burst);
  tokens_ = std::min(tokens_, burst_);
}

double quota_share(int assigned_partitions, int topic_partitions) {
  if (assigned_partitions <= 0 || topic_partitions <= 0) {
    return 1.0;
  }
  return std::min(1.0, static_cast<double>(assigned_partitions) / topic_partitions);
}

}  // namespace courier
