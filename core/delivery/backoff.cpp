#include "core/delivery/backoff.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <utility>

namespace courier {

using std::chrono::milliseconds;

full_jitter_backoff::full_jitter_backoff(backoff_policy policy, uniform_source uniform)
    : policy_(policy), uniform_(std::move(uniform)) {}

milliseconds full_jitter_backoff::ceiling(int attempts_made) const {
  const auto cap = std::max<milliseconds::rep>(policy_.max.count(), 0);
  const auto initial = std::max<milliseconds::rep>(policy_.initial.count(), 0);
  const int exponent = std::max(attempts_made, 1) - 1;
  // In double, pow saturates to infinity instead of overflowing; compare before converting.
  const double grown =
      static_cast<double>(initial) * std::pow(policy_.multiplier, static_cast<double>(exponent));
  if (!(grown < static_cast<double>(cap))) {
    // Also the NaN case (0 * inf): the cap is the safe answer.
    return milliseconds{cap};
  }
  return milliseconds{static_cast<milliseconds::rep>(grown)};
}

milliseconds full_jitter_backoff::delay_after(int attempts_made) const {
  const auto top = ceiling(attempts_made).count();
  double u = uniform_ ? uniform_() : 0.0;
  if (!(u >= 0.0)) {
    u = 0.0;
  }
  u = std::min(u, 1.0);
  // (top + 1) buckets make every whole millisecond in [0, top] equally likely.
  const double scaled = std::floor(u * (static_cast<double>(top) + 1.0));
  if (scaled >= static_cast<double>(top)) {
    // Compared in double first: converting an out-of-range double is undefined.
    return milliseconds{top};
  }
  return milliseconds{static_cast<milliseconds::rep>(scaled)};
}

milliseconds full_jitter_backoff::delay_after(int attempts_made,
                                              std::optional<milliseconds> retry_after) const {
  const milliseconds jitter = delay_after(attempts_made);
  if (!retry_after) {
    return jitter;
  }
  const milliseconds asked =
      std::clamp(*retry_after, milliseconds{0}, std::max(policy_.max_retry_after, milliseconds{0}));
  return std::max(jitter, asked);
}

bool full_jitter_backoff::may_retry(int attempts_made) const {
  return attempts_made < policy_.max_attempts;
}

const backoff_policy& full_jitter_backoff::policy() const { return policy_; }

full_jitter_backoff::uniform_source make_random_source(std::uint64_t seed) {
  // Shared so copies of the std::function draw from one sequence instead of replaying it.
  auto engine = std::make_shared<std::mt19937_64>(seed);
  return [engine]() {
    // The top 53 bits scaled by 2^-53: exactly [0, 1), which uniform_real_distribution does
    // not guarantee in every standard library.
    return static_cast<double>((*engine)() >> 11) * 0x1.0p-53;
  };
}

}  // namespace courier
