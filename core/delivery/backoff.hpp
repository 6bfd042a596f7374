#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

namespace courier {

// In-process retry schedule of one delivery (DESIGN.md section 2).
struct backoff_policy {
  std::chrono::milliseconds initial{200};
  double multiplier{2.0};
  std::chrono::milliseconds max{5000};
  // Attempts in process, the first one included; then the record goes to a retry tier.
  int max_attempts{4};
  // A receiver's Retry-After is honoured up to this; longer waits belong to the retry tiers.
  std::chrono::milliseconds max_retry_after{30000};
};

// Exponential backoff with "full jitter" (AWS architecture blog): the delay is uniform in
// [0, min(max, initial * multiplier^(attempts_made - 1))], so failing senders spread out.
class full_jitter_backoff {
 public:
  // Returns a value in [0, 1); injected so tests choose the extremes.
  using uniform_source = std::function<double()>;

  full_jitter_backoff(backoff_policy policy, uniform_source uniform);

  // Delay before the next attempt after `attempts_made` (>= 1; smaller counts as 1) failed.
  [[nodiscard]] std::chrono::milliseconds delay_after(int attempts_made) const;

  // As above, but never shorter than the receiver's Retry-After, clamped to
  // policy().max_retry_after: max(jitter, min(retry_after, max_retry_after)).
  [[nodiscard]] std::chrono::milliseconds delay_after(
      int attempts_made, std::optional<std::chrono::milliseconds> retry_after) const;

  // Whether another in-process attempt is allowed: attempts_made < max_attempts.
  [[nodiscard]] bool may_retry(int attempts_made) const;

  // The upper bound of delay_after(attempts_made) before jitter.
  [[nodiscard]] std::chrono::milliseconds ceiling(int attempts_made) const;

  [[nodiscard]] const backoff_policy& policy() const;

 private:
  backoff_policy policy_;
  uniform_source uniform_;
};

// A uniform [0, 1) source over std::mt19937_64; the same seed gives the same sequence.
full_jitter_backoff::uniform_source make_random_source(std::uint64_t seed);

}  // namespace courier
