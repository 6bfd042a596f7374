#pragma once

#include <chrono>

#include "actors/consumer_actor.hpp"
#include "core/kafka/cluster.hpp"

namespace courier::topology {

// How long a tier scan may wait for the broker at any one step (metadata, watermarks, the gap
// between two records) before the assignment fails.
inline constexpr std::chrono::seconds tier_scan_stall_timeout{30};

// A route ordered by key reads its assigned retry-tier partitions with kafka::range_reader,
// from each one's committed offset (or the first offset still in the log) to the high
// watermark it had when the read started.
actors::tier_scan range_reader_tier_scan(kafka::cluster at);

}  // namespace courier::topology
