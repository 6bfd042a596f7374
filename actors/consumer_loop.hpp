#pragma once

// The consumer actor's own steps (actors/consumer_actor.cpp's handlers call them): the poll
// loop, the rebalance callbacks, publishing to the route's metrics, and closing. Internal to
// the consumer actor.

#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/consumer_actor.hpp"

namespace courier::actors::consumer_loop {

using self_ptr = caf::stateful_actor<consumer_actor_state>*;

std::string name_of(const partition_id& p);

// Unix ms by the actor's time (actor_time.hpp): what the core is told is now.
inline std::int64_t now_ms(self_ptr self) { return self->state.time.now_ms(self->clock().now()); }

// After every event: the records it dispatched go out (one message), the metrics are updated,
// and the partitions' statuses when a pause changed (else at most once a second).
void publish(self_ptr self);

// Commits every commit point, closes librdkafka's consumer (leaving the group) and quits.
void close_consumer(self_ptr self);

// Commits the commit points (and offset maps) that moved since the last commit.
void commit_moved(self_ptr self, kafka::commit_mode mode);
// The broker's answers to a commit.
void on_committed(self_ptr self, const std::vector<commit_outcome>& outcomes);
// Draining and nothing handed out any more: close.
void check_drained(self_ptr self);

// One turn of the poll loop. The loop keeps itself going while a refill is due; a full route
// stops it until outcomes free room for one (consumer_core::refill_due), with a rare idle poll
// in between (its record waits in the core's overflow).
void poll_turn(self_ptr self);

// librdkafka's statistics (every statistics.interval.ms, inside poll): the partitions' positions
// for /metrics and /state, and the check that the route does not starve for records its
// partitions hold (a warning at most once a minute, and courier_consumer_fetch_starved_total).
void on_positions(self_ptr self, const std::vector<kafka::partition_position>& ps);

// librdkafka's rebalance callbacks (they run inside poll). The state's revoke_drain decides
// what a revoke waits for (core/flow/revoke_drain.hpp); consumer_revoke_io carries it out.
void on_assigned(self_ptr self, const std::vector<assigned_partition>& ps);
kafka::revoke_timing on_revoked(self_ptr self, const std::vector<partition_id>& ps, bool lost);

// The delivery pool's outcomes: the core completes them, a revoke waiting may end, a commit may
// be due, a full route may refill, a drain may be done.
void on_outcomes(self_ptr self, const outcome_batch& outcomes);
// drain_atom: stop fetching (the shutdown reason), finish what is in flight up to drain_timeout,
// then close.
void start_drain(self_ptr self);
// The delivery pool's notice that a record of the partition cannot be written onward, or can
// again.
void on_blocked(self_ptr self, const onward_blocked& b);

// A route-wide pause reason on or off; the partitions whose reasons changed, compacted for the
// log (one entry a topic: "t[0-3,5]").
std::vector<std::string> set_route_reason(self_ptr self, pause_reason reason, bool on);

}  // namespace courier::actors::consumer_loop
