#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/route_metrics.hpp"
#include "core/flow/consumer_core.hpp"
#include "core/kafka/consumer.hpp"

namespace courier::actors {

struct consumer_actor_settings {
  kafka::consumer_settings kafka;
  std::string route;
  consumer_core_settings core;
  std::chrono::milliseconds drain_timeout{10000};
  std::size_t max_records_per_poll = 500;
};

// The consumer core's I/O: librdkafka for fetch flags and offsets, CAF messages for the
// delivery pool and the consumer's own timers.
class consumer_io final : public consumer_backend {
 public:
  consumer_io(caf::event_based_actor* self, caf::actor delivery);
  void attach(kafka::consumer* kafka) { kafka_ = kafka; }

  void dispatch(record r) override;  // batched: flush() sends them
  // Sends the records dispatched since the last flush to the delivery pool, in one message.
  void flush();
  void expedite(const partition_id& p, std::int64_t offset) override;
  void pause(const std::vector<partition_id>& ps) override;
  void resume(const std::vector<partition_id>& ps) override;
  void store_offset(const partition_id& p, std::int64_t next_offset) override;
  void wake_at(const partition_id& p, std::int64_t at_ms) override;
  void malformed_due(const record& r, const std::string& error) override;

 private:
  caf::event_based_actor* self_;
  caf::actor delivery_;
  kafka::consumer* kafka_ = nullptr;
  record_batch batch_;
};

struct consumer_actor_state {
  static inline const char* name = "courier.consumer";
  consumer_actor_settings settings;
  std::shared_ptr<route_metrics> metrics;
  std::optional<consumer_io> io;
  std::optional<consumer_core> core;
  caf::actor_clock::time_point last_poll{};
  caf::actor_clock::time_point partitions_published{};
  std::uint64_t published_pause_changes = 0;
  bool waiting_for_room = false;  // the poll loop stopped until an outcome frees room
  bool idle_timer_armed = false;
  bool draining = false;
  bool closed = false;
  // Declared last, so destroyed first: closing it runs the revoke callback, which needs the
  // core and its backend alive.
  std::unique_ptr<kafka::consumer> kafka;
};

// Detached: librdkafka's poll blocks. A thin shell around courier::consumer_core
// (core/flow/consumer_core.hpp): polls, feeds the core, and carries out what it decides.
//   poll_atom, poll_idle_atom          (to itself)
//   outcome_atom, outcome_batch        (from the delivery pool)
//   due_atom, topic, partition         (to itself: the core's wake_at)
//   pause_atom | resume_atom, reason   -> std::vector<std::string> partitions changed
//   drain_atom                         stop fetching, finish in-flight (bounded), commit, close
//   blocked_atom, produce_blocked      (from the delivery pool: hold or release a partition)
// Sends the delivery pool (deliver_atom, record_batch), one per event at most, and
// (expedite_atom, topic, partition, offset).
caf::behavior consumer_actor(caf::stateful_actor<consumer_actor_state>* self,
                             consumer_actor_settings settings, caf::actor delivery,
                             std::shared_ptr<route_metrics> metrics);

}  // namespace courier::actors
