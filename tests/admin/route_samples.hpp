#pragma once

// Snapshots of a busy route, for the admin pages' tests.

#include <vector>

#include "actors/partition_board.hpp"
#include "actors/route_metrics.hpp"
#include "admin/snapshot.hpp"

namespace courier::admin {

inline route_snapshot busy_route() {
  actors::route_metrics m;
  m.consumer[consumer_counter::consumed] = 120;
  m.deliveries[delivery_counter::delivered] = 100;
  m.deliveries[delivery_counter::retried] = 7;
  m.deliveries[delivery_counter::dead_lettered] = 3;
  m.deliveries[delivery_counter::attempts] = 131;
  m.deliveries[delivery_counter::retries] = 21;
  m.deliveries[delivery_counter::endpoint_failures] = 2;
  m.deliveries[delivery_counter::head_of_line_moves] = 4;
  m.breaker_state = 2;
  m.actors[actors::route_counter::breaker_trips] = 1;
  m.actors[actors::route_counter::breaker_to_open] = 3;
  m.actors[actors::route_counter::breaker_to_half_open] = 2;
  m.actors[actors::route_counter::commit_failures] = 4;
  m.deliveries[delivery_counter::answered_2xx] = 100;
  m.deliveries[delivery_counter::answered_5xx] = 21;
  m.deliveries[delivery_counter::answered_none] = 10;
  m.actors[actors::route_counter::pauses] = 5;
  m.gauges[actors::route_gauge::paused_partitions] = 3;
  m.gauges[actors::route_gauge::in_flight] = 10;
  m.assigned = true;
  consumer_core::partition_status p0;
  p0.id = {"brew.shipments.v1", 0};
  p0.assigned = true;
  p0.reasons = {pause_reason::breaker, pause_reason::produce_blocked};
  p0.paused_since_ms = 1'796'141'107'123;
  p0.committable = 900;
  p0.in_flight = 6;
  p0.accounting = {60, 50, 3, 1, 0};
  consumer_core::partition_status p1;
  p1.id = {"brew.shipments.v1", 1};
  p1.accounting = {60, 50, 4, 2, 4};  // revoked: what was in flight was released
  m.partitions.publish({p0, p1});
  m.partitions.publish(std::vector<kafka::partition_position>{
      {"brew.shipments.v1", 0, 880, 1000, 120}, {"brew.shipments.v1", 1, 40, 60, 20}});
  auto s = snapshot_of("shipments", m);
  s.topic = "brew.shipments.v1";
  s.dlq_topic = "brew.shipments.dlq";
  return s;
}

// routes[].ordering "key": the parked keys, the followers and since when the oldest key waits,
// for the partitions with an order book only.
inline route_snapshot ordered_route() {
  auto s = busy_route();
  actors::partition_board board;
  consumer_core::partition_status p0;
  p0.id = {"brew.shipments.v1", 0};
  p0.assigned = true;
  p0.reasons = {pause_reason::ordering};
  p0.ordered = true;
  p0.parked_keys = 12;
  p0.followers = 30;
  p0.oldest_parked_since_ms = 1'796'141'107'123;
  consumer_core::partition_status p1;
  p1.id = {"brew.shipments.v1", 1};
  p1.assigned = true;
  board.publish({p0, p1});
  s.partitions = board.snapshot();
  return s;
}

}  // namespace courier::admin
