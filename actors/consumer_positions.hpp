#pragma once

#include <vector>

#include <caf/all.hpp>

#include "actors/consumer_actor.hpp"
#include "core/kafka/consumer_stats.hpp"

namespace courier::actors {

// librdkafka's statistics (every statistics.interval.ms, inside the consumer actor's poll): the
// partitions' positions for /metrics and /state, and the check that the route does not starve
// for records its partitions hold (a warning at most once a minute, and
// courier_consumer_fetch_starved_total).
void on_consumer_positions(caf::stateful_actor<consumer_actor_state>* self,
                           const std::vector<kafka::partition_position>& ps);

}  // namespace courier::actors
