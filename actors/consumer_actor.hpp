#pragma once

#include <chrono>
#include <deque>
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/route_metrics.hpp"
#include "core/flow/due_gate.hpp"
#include "core/flow/head_of_line.hpp"
#include "core/kafka/consumer.hpp"
#include "core/flow/offset_tracker.hpp"
#include "core/flow/partition_pauses.hpp"

namespace courier::actors {

struct consumer_actor_settings {
  kafka::consumer_settings kafka;
  std::string route;
  std::size_t max_in_flight = 256;              // whole route
  std::size_t max_in_flight_per_partition = 0;  // one partition; 0: no bound of its own
  std::size_t head_of_line_records = 1000;      // 0: no head-of-line bound
  std::chrono::milliseconds drain_timeout{10000};
  std::size_t max_records_per_poll = 500;
  // Retry-tier topics: their records pass the due-time gate before delivery.
  std::set<std::string> gated_topics;
};

struct consumer_actor_state {
  static inline const char* name = "courier.consumer";
  consumer_actor_settings settings;
  std::unique_ptr<kafka::consumer> kafka;
  caf::actor delivery;
  std::map<partition_id, offset_tracker> trackers;
  std::map<partition_id, head_of_line_guard> heads;
  partition_pauses pauses;
  // Retry-tier records waiting for their due time; their partitions are paused meanwhile.
  due_gate gate;
  // Records taken from librdkafka while the route was full: kept here, not dropped, and handed
  // out first once there is room. Pausing for route backpressure would cost a refetch (a pause
  // drops librdkafka's prefetched records and a resume waits for the fetcher's next round),
  // so a full route simply stops taking records and polls rarely.
  std::deque<record> overflow;
  caf::actor_clock::time_point last_poll{};
  bool waiting_for_room = false;  // the poll loop stopped until an outcome frees room
  bool idle_timer_armed = false;
  bool draining = false;
  bool closed = false;
  std::shared_ptr<route_metrics> metrics;
};

// Detached: librdkafka's poll blocks. Polls, hands each record to the delivery pool, tracks
// offsets and stores the lowest offset still in flight; pauses partitions for the reasons it is
// given; commits on revoke and on drain.
//   poll_atom, poll_idle_atom          (to itself)
//   outcome_atom, delivery_outcome     (from the delivery pool)
//   due_atom, topic, partition         (to itself: a gated partition's head may be due)
//   pause_atom | resume_atom, reason   -> std::vector<std::string> partitions changed
//   drain_atom                         stop fetching, finish in-flight (bounded), commit, close
// Sends the delivery pool (expedite_atom, topic, partition, offset) when a partition's head
// record passes the head-of-line bound.
caf::behavior consumer_actor(caf::stateful_actor<consumer_actor_state>* self,
                             consumer_actor_settings settings, caf::actor delivery,
                             std::shared_ptr<route_metrics> metrics);

}  // namespace courier::actors
