#pragma once

// What the consumer core counts (core/flow/consumer_core.hpp), declared once: the enum, and the
// table the admin listener renders /metrics and /state from.

#include <array>
#include <cstdint>

#include "core/metrics/counter_table.hpp"

namespace courier {

enum class consumer_counter : std::uint8_t {
  consumed,             // records fetched from the route's topics
  rewound_duplicates,   // fetched again after a rewind: dropped
  backpressure_pauses,  // a partition paused at its own in-flight bound
};

template <>
struct metrics::counter_table<consumer_counter> {
  using c = consumer_counter;
  static constexpr std::array<counter_spec<c>, 3> rows{{
      {c::consumed, "consumed", "courier_records_consumed_total",
       "Records fetched from the route's topics."},
      {c::rewound_duplicates, "rewound_duplicates", "courier_records_rewound_duplicates_total",
       "Records fetched again after a rewind and dropped."},
      {c::backpressure_pauses, "backpressure_pauses", "courier_backpressure_pauses_total",
       "Times a partition paused at its own in-flight bound."},
  }};
};
static_assert(metrics::counters_are_in_order<consumer_counter>());

using consumer_counts = metrics::counter_array<consumer_counter, std::uint64_t>;

}  // namespace courier
