#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/flow/offset_tracker.hpp"

namespace courier {

// The head-of-line bound of one partition (uForwarder's HeadBlockingDetector): the lowest
// record in flight holds the commit point back. Once more than `max_records` offsets lie
// between it and the last one taken, it should move to the next retry tier at once, so the
// committed offset keeps up and a crash re-delivers at most about that many records.
class head_of_line_guard {
 public:
  // 0 turns the bound off.
  explicit head_of_line_guard(std::size_t max_records);

  // The head's offset when it holds the partition back beyond the bound, once per head: a
  // head already reported is not reported again.
  [[nodiscard]] std::optional<std::int64_t> check(const offset_tracker& t);

 private:
  std::size_t max_records_;
  std::optional<std::int64_t> reported_;
};

}  // namespace courier
