#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <caf/all.hpp>

#include "actors/consumer_io.hpp"
#include "actors/actor_time.hpp"
#include "actors/messages.hpp"
#include "actors/route_metrics.hpp"
#include "core/flow/consumer_core.hpp"
#include "core/flow/commit_failures.hpp"
#include "core/flow/fetch_starvation.hpp"
#include "core/flow/revoke_drain.hpp"
#include "core/kafka/consumer.hpp"
#include "core/kafka/group_consumer.hpp"

namespace courier::actors {

// Makes the actor's member of the consumer group; the callbacks run inside its poll() and close().
using group_consumer_factory = std::function<std::unique_ptr<kafka::group_consumer>(
  const kafka::consumer_settings&, kafka::consumer::callbacks)>;

// The real one: kafka::open_group_member (librdkafka), subscribed as the settings say: one
// member, or two when the route has tiers (split_consumer).
std::unique_ptr<kafka::group_consumer> open_kafka_consumer(const kafka::consumer_settings& s,
                                                           kafka::consumer::callbacks cb);

// routes[].ordering "key": reads these retry-tier partitions from their committed offsets to
// their high watermarks and hands each record to `on_record`; throws kafka_error when it cannot.
using tier_scan = std::function<void(const std::vector<assigned_partition>& tiers,
                                     const std::function<void(record&&)>& on_record)>;

struct consumer_actor_settings {
  kafka::consumer_settings kafka;
  std::string route;
  consumer_core_settings core;
  std::chrono::milliseconds drain_timeout{10000};
  // How often the commit points that moved are committed (auto.commit.interval.ms), and how
  // long a revoked partition's records in flight may take to finish before its last commit
  // (kafka.revoke_drain_timeout).
  std::chrono::milliseconds commit_interval{5000};
  std::chrono::milliseconds revoke_drain_timeout{2000};
  std::size_t max_records_per_poll = 500;
  group_consumer_factory open_consumer = open_kafka_consumer;  // a test passes a fake
  // After a poll that had room and brought nothing, the next one waits this long on a timer.
  // 0: it follows at once, paced by the poll's own wait in librdkafka. A test's fake returns
  // at once, so an actor test sets a wait in virtual time and the loop comes to rest.
  std::chrono::milliseconds empty_poll_wait{0};
  // The route's source topic and its partitions (routes[].rate_limit): after every rebalance
  // the delivery pool is told how many of them this instance holds. 0: not told.
  std::string source_topic;
  std::int32_t source_partitions = 0;
  // Set for a route ordered by key: run on every assignment of retry-tier partitions, before
  // any record is fetched, so the keys that wait behind their records are known (DESIGN.md
  // section 11). Empty: no scan.
  tier_scan scan_tiers;
};

struct consumer_actor_state;

// A run of failed commits takes a log line at most this often (and one at each end).
inline constexpr std::int64_t commit_failures_log_interval_ms = 5000;

// The revoke drain's I/O (carried out in actors/consumer_actor.cpp): the last commit of the
// partitions given up, librdkafka's complete_revoke, the deadline timer, the log lines, and what
// follows a give-up (statuses, the quota share, a drain that may end).
class consumer_revoke_io final : public revoke_backend {
 public:
  explicit consumer_revoke_io(caf::stateful_actor<consumer_actor_state>* self) : self_(self) {}
  void commit_final(const std::vector<partition_id>& ps) override;
  void complete_revoke() override;
  void arm_deadline(std::chrono::milliseconds after, std::uint64_t n) override;
  void revoked(const revoke_report& r) override;

 private:
  caf::stateful_actor<consumer_actor_state>* self_;
};

struct consumer_actor_state {
  static inline const char* name = "courier.consumer";
  consumer_actor_settings settings;
  std::shared_ptr<route_metrics> metrics;
  actor_time time;  // the core's clock (actor_time.hpp)
  std::optional<consumer_io> io;
  std::optional<consumer_core> core;
  std::optional<fetch_starvation> starvation;
  // A run of failed commits (a broker outage) takes a few log lines, not one per commit.
  commit_failures commit_log{commit_failures_log_interval_ms};
  std::int64_t starvation_logged_ms = 0;      // Unix ms of the last warning about it
  std::uint64_t source_pause_flips_seen = 0;  // the core's source_pause_flips() last told it
  caf::actor_clock::time_point last_poll{};
  caf::actor_clock::time_point partitions_published{};
  std::uint64_t published_pause_changes = 0;
  // The characters of a commit's metadata the offset map may take: halved each time the broker
  // refuses one as too large (offset.metadata.max.bytes set below 4,096).
  std::size_t offset_map_budget = default_offset_map_budget;
  // The drain on revoke, driving the core: what waits for its records in flight.
  std::optional<consumer_revoke_io> revoke_io;
  std::optional<revoke_drain> drain;
  bool waiting_for_room = false;  // the poll loop stopped until an outcome frees room
  bool idle_timer_armed = false;
  bool draining = false;
  bool closed = false;
  std::string final_commit_error;  // set when a partition's last commit failed at close
  // Declared last, so destroyed first: closing it runs the revoke callback, which needs the
  // core and its backend alive.
  std::unique_ptr<kafka::group_consumer> kafka;
};

// Detached: librdkafka's poll blocks. A thin shell around courier::consumer_core
// (core/flow/consumer_core.hpp): polls, feeds the core, and carries out what it decides.
//   poll_atom, poll_idle_atom          (to itself)
//   outcome_atom, outcome_batch        (from the delivery pool)
//   receipt_atom, answered_batch       (from the delivery pool: answered 2xx, receipts on the way)
//   due_atom, topic, partition, at_ms  (to itself: the core's wake_at, armed for at_ms)
//   pause_atom | resume_atom, reason   -> std::vector<std::string> partitions changed ("t[0-3]")
//   drain_atom                         stop fetching, finish in-flight (bounded), commit, close
//   commit_atom                        (to itself, every commit_interval) commit what moved
//   revoke_deadline_atom, n            (to itself) revoke n's wait is over
//   blocked_atom, onward_blocked      (from the delivery pool: hold or release a partition)
// Sends the delivery pool (deliver_atom, record_batch), one per event at most, and
// (expedite_atom, topic, partition, offset).
caf::behavior consumer_actor(caf::stateful_actor<consumer_actor_state>* self,
                             consumer_actor_settings settings, caf::actor delivery,
                             std::shared_ptr<route_metrics> metrics);

}  // namespace courier::actors
