#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/flow/offset_tracker.hpp"

namespace courier {

// The head-of-line bound of one partition (uForwarder's HeadBlockingDetector): the lowest
// record in flight holds the commit point back. Once more than `max_records` offsets lie
// between it and the last one taken, or it has held the commit point for `max_age_ms`, it
// should move to the next retry tier at once, so the committed offset keeps up and a crash
// re-delivers at most about that much per partition.
class head_of_line_guard {
 public:
  // 0 turns that half of the bound off.
  explicit head_of_line_guard(std::size_t max_records, std::int64_t max_age_ms = 0);

  // The head's offset when it holds the partition back beyond the bound, once per head: a
  // head already reported is not reported again. `now_ms` dates when a new head took over.
  [[nodiscard]] std::optional<std::int64_t> check(const offset_tracker& t, std::int64_t now_ms);

  // When the current head passes the age bound, if there is one and it is not reported yet.
  [[nodiscard]] std::optional<std::int64_t> age_deadline_ms() const;

 private:
  std::size_t max_records_;
  std::int64_t max_age_ms_;
  std::optional<std::int64_t> head_;  // the head seen at the latest check
  std::int64_t head_since_ms_ = 0;
  std::optional<std::int64_t> reported_;
};

}  // namespace courier
