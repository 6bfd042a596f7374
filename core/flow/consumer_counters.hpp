#pragma once

// What the consumer core counts (core/flow/consumer_core.hpp), declared once: the enum, and the
// table the admin listener renders /metrics and /state from.

#include <array>
#include <cstdint>

#include "core/metrics/counter_table.hpp"

namespace courier {

enum class consumer_counter : std::uint8_t {
  consumed,              // records fetched from the route's topics
  rewound_duplicates,    // fetched again after a rewind: dropped
  backpressure_pauses,   // a partition paused at its own in-flight bound
  already_done,          // fetched, and done by the commit's offset map: not delivered again
  offset_maps_read,      // assignments whose committed metadata was courier's offset map
  offset_maps_ignored,   // assignments whose committed metadata was another client's, or broken
  untrusted_provenance,  // source records that carried courier's provenance headers: taken off
  // assignments whose courier map was written for another offset than the committed one
  offset_maps_other_offset,
};

template <>
struct metrics::counter_table<consumer_counter> {
  using c = consumer_counter;
  static constexpr std::array<counter_spec<c>, 8> rows{{
      {c::consumed, "consumed", "courier_records_consumed_total",
       "Records fetched from the route's topics."},
      {c::rewound_duplicates, "rewound_duplicates", "courier_records_rewound_duplicates_total",
       "Records fetched again after a rewind and dropped."},
      {c::backpressure_pauses, "backpressure_pauses", "courier_backpressure_pauses_total",
       "Times a partition paused at its own in-flight bound."},
      {c::already_done, "already_done", "courier_records_already_done_total",
       "Records fetched that the offset map committed with their partition says were done "
       "(delivered, dead-lettered or moved to a tier): not delivered again."},
      {c::offset_maps_read, "offset_maps_read", "courier_offset_maps_read_total",
       "Partitions assigned with courier's offset map in their committed metadata."},
      {c::offset_maps_ignored, "offset_maps_ignored", "courier_offset_maps_ignored_total",
       "Partitions assigned with committed metadata that is not courier's offset map, or is "
       "broken: ignored (their records above the commit point are delivered again)."},
      {c::untrusted_provenance, "untrusted_provenance", "courier_untrusted_provenance_total",
       "Source records that carried courier's provenance headers (courier.origin.*, "
       "courier.attempts, courier.retry.*, ...), which only courier writes and only on its own "
       "topics: the headers were taken off and courier wrote its own."},
      {c::offset_maps_other_offset, "offset_maps_other_offset",
       "courier_offset_maps_other_offset_total",
       "Partitions assigned with courier's offset map written for another offset than the one "
       "committed now (a reset that kept the metadata, another client's commit), or with an old "
       "map that names no offset: ignored, no record above the commit point is skipped."},
  }};
};
static_assert(metrics::counters_are_in_order<consumer_counter>());

using consumer_counts = metrics::counter_array<consumer_counter, std::uint64_t>;

}  // namespace courier
