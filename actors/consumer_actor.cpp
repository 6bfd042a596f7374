#include "actors/consumer_actor.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "actors/failure_log.hpp"
#include "core/log/json_log.hpp"

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<consumer_actor_state>*;

std::string name_of(const partition_id& p) {
  return p.topic + "[" + std::to_string(p.partition) + "]";
}

std::vector<std::string> names_of(const std::vector<partition_id>& ps) {
  std::vector<std::string> names;
  names.reserve(ps.size());
  for (const auto& p : ps) {
    names.push_back(name_of(p));
  }
  return names;
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// librdkafka must be polled now and then even when the route is full: rebalance callbacks
// run inside poll, and max.poll.interval.ms evicts a consumer that stops polling.
constexpr auto idle_poll_interval = std::chrono::milliseconds{500};
constexpr auto draining_poll_interval = std::chrono::milliseconds{50};

// The partitions' statuses go out when a pause changed and otherwise at most this often.
constexpr auto partition_publish_interval = std::chrono::seconds{1};

// After every event: the records it dispatched go out (one message), the metrics are updated.
void publish(self_ptr self) {
  auto& st = self->state;
  st.io->flush();
  const auto& c = st.core->counts();
  st.metrics->fetched = c.fetched;
  st.metrics->rewound_duplicates = c.rewound_duplicates;
  st.metrics->backpressure_pauses = c.backpressure_pauses;
  st.metrics->paused_partitions = static_cast<std::int64_t>(st.core->paused_count());
  const auto now = self->clock().now();
  if (st.core->pause_changes() != st.published_pause_changes ||
      now - st.partitions_published >= partition_publish_interval) {
    st.published_pause_changes = st.core->pause_changes();
    st.partitions_published = now;
    st.metrics->partitions.publish(st.core->statuses(now_ms()));
  }
}

completion to_completion(outcome_kind k) {
  switch (k) {
    case outcome_kind::delivered:
      return completion::delivered;
    case outcome_kind::retried:
      return completion::retried;
    case outcome_kind::dead_lettered:
      return completion::dead_lettered;
  }
  return completion::delivered;
}

void close_consumer(self_ptr self) {
  auto& st = self->state;
  if (st.closed) {
    return;
  }
  st.closed = true;
  st.core->store_all();
  st.kafka->close();
  log::info("consumer closed",
            {{"route", st.settings.route}, {"in_flight_left", st.core->outstanding()}});
  self->quit();
}

void check_drained(self_ptr self) {
  auto& st = self->state;
  if (st.draining && st.core->outstanding() == 0) {
    close_consumer(self);
  }
}

void poll_into_core(self_ptr self, std::chrono::milliseconds timeout, std::size_t max_records) {
  auto& st = self->state;
  auto records = st.kafka->poll(timeout, max_records);
  st.last_poll = self->clock().now();
  const auto now = now_ms();
  for (auto& r : records) {
    (void)st.core->take(std::move(r), now);
  }
  publish(self);
}

void arm_idle_timer(self_ptr self, std::chrono::milliseconds interval) {
  auto& st = self->state;
  if (!st.idle_timer_armed) {
    st.idle_timer_armed = true;
    self->delayed_send(self, interval, poll_idle_atom::value);
  }
}

// One turn of the poll loop. The loop keeps itself going while there is room; a full route
// stops it until an outcome frees room, with a rare idle poll in between (its record waits in
// the core's overflow).
void poll_turn(self_ptr self) {
  auto& st = self->state;
  st.core->release_overflow();
  const auto free = st.core->room();
  if (free > 0) {
    st.waiting_for_room = false;
    poll_into_core(self, std::chrono::milliseconds{50},
                   std::min(free, st.settings.max_records_per_poll));
    self->send(self, poll_atom::value);
    return;
  }
  // While draining every partition is paused, so polling takes no records: poll often then,
  // because the group waits for this member in a rebalance, and only poll() serves it.
  const auto interval = st.draining ? draining_poll_interval : idle_poll_interval;
  if (self->clock().now() - st.last_poll >= interval) {
    poll_into_core(self, std::chrono::milliseconds{0}, 1);
  }
  st.waiting_for_room = true;
  arm_idle_timer(self, interval);
}

void on_assigned(self_ptr self, const std::vector<partition_id>& ps) {
  auto& st = self->state;
  st.core->assign(ps, now_ms());
  publish(self);
  st.metrics->assigned = true;
  log::info("partitions assigned", {{"route", st.settings.route}, {"partitions", names_of(ps)}});
  if (st.draining) {
    // A rebalance while draining: the eager protocol revoked every partition first, so nothing
    // in flight can be committed by this instance any more, and sitting on the new assignment
    // until the drain deadline would leave it without a consumer. Leave the group now (from a
    // message, not inside this callback, which runs within librdkafka's poll).
    log::info("assigned while draining: leaving the group at once",
              {{"route", st.settings.route}, {"partitions", names_of(ps)}});
    self->send(self, drain_deadline_atom::value);
  }
}

void on_revoked(self_ptr self, const std::vector<partition_id>& ps) {
  auto& st = self->state;
  st.core->revoke(ps);
  publish(self);
  log::info("partitions revoked", {{"route", st.settings.route}, {"partitions", names_of(ps)}});
  if (st.draining && st.core->outstanding() == 0) {
    // Nothing left to finish: leave now rather than wait for the next assignment (from a
    // message: this callback runs within librdkafka's poll).
    self->send(self, drain_deadline_atom::value);
  }
}

std::vector<std::string> set_route_reason(self_ptr self, pause_reason reason, bool on) {
  auto names = names_of(self->state.core->set_route_reason(reason, on));
  publish(self);
  return names;
}

}  // namespace

consumer_io::consumer_io(caf::event_based_actor* self, caf::actor delivery)
    : self_(self), delivery_(std::move(delivery)) {}

void consumer_io::dispatch(record r) { batch_.push_back(std::move(r)); }

void consumer_io::flush() {
  if (!batch_.empty()) {
    self_->send(delivery_, deliver_atom::value, std::exchange(batch_, {}));
  }
}

void consumer_io::expedite(const partition_id& p, std::int64_t offset) {
  flush();  // the record it names reaches the pool first
  self_->send(delivery_, expedite_atom::value, p.topic, p.partition, offset);
}

void consumer_io::pause(const std::vector<partition_id>& ps) { kafka_->pause(ps); }

void consumer_io::resume(const std::vector<partition_id>& ps) { kafka_->resume(ps); }

void consumer_io::store_offset(const partition_id& p, std::int64_t next_offset) {
  kafka_->store_offset(p, next_offset);
}

void consumer_io::wake_at(const partition_id& p, std::int64_t at_ms) {
  const auto wait = std::chrono::milliseconds{std::max<std::int64_t>(0, at_ms - now_ms())};
  self_->delayed_send(self_, wait, due_atom::value, p.topic, p.partition);
}

void consumer_io::malformed_due(const record& r, const std::string& error) {
  log::warn(
    "retry record with a malformed due time; delivering it now",
    {{"topic", r.topic}, {"partition", r.partition}, {"offset", r.offset}, {"error", error}});
}

caf::behavior consumer_actor(self_ptr self, consumer_actor_settings settings, caf::actor delivery,
                             std::shared_ptr<route_metrics> metrics) {
  log_failures(self, "consumer", settings.route);
  auto& st = self->state;
  st.settings = std::move(settings);
  st.metrics = std::move(metrics);
  st.io.emplace(self, std::move(delivery));
  st.core.emplace(st.settings.core, *st.io);
  kafka::consumer::callbacks cb;
  cb.on_assigned = [self](const std::vector<partition_id>& ps) { on_assigned(self, ps); };
  cb.on_revoked = [self](const std::vector<partition_id>& ps) { on_revoked(self, ps); };
  cb.on_error = [self](const std::string& message) {
    log::warn("kafka consumer error", {{"route", self->state.settings.route}, {"error", message}});
  };
  cb.on_positions = [self](const std::vector<kafka::partition_position>& ps) {
    self->state.metrics->partitions.publish(ps);
  };
  st.kafka = std::make_unique<kafka::consumer>(st.settings.kafka, std::move(cb));
  st.io->attach(st.kafka.get());
  self->send(self, poll_atom::value);
  return {
    [=](poll_atom) {
      if (!self->state.closed) {
        poll_turn(self);
      }
    },
    [=](poll_idle_atom) {
      auto& s = self->state;
      s.idle_timer_armed = false;
      if (!s.closed && s.waiting_for_room) {
        poll_turn(self);
      }
    },
    [=](outcome_atom, const outcome_batch& outcomes) {
      auto& s = self->state;
      const auto now = now_ms();
      // Delivered, or acknowledged by the broker in a retry tier or the DLQ: done either way.
      for (const auto& o : outcomes) {
        s.core->complete(partition_id{o.topic, o.partition}, o.offset, to_completion(o.kind), now);
      }
      publish(self);
      if (s.waiting_for_room && s.core->room() > 0) {
        s.waiting_for_room = false;
        self->send(self, poll_atom::value);
      }
      check_drained(self);
    },
    [=](pause_atom, pause_reason reason) { return set_route_reason(self, reason, true); },
    [=](resume_atom, pause_reason reason) { return set_route_reason(self, reason, false); },
    [=](drain_atom) {
      auto& s = self->state;
      if (s.draining) {
        return;
      }
      s.draining = true;
      s.metrics->draining = true;
      set_route_reason(self, pause_reason::shutdown, true);
      log::info("draining", {{"route", s.settings.route},
                             {"in_flight", s.core->outstanding()},
                             {"timeout_ms", s.settings.drain_timeout.count()}});
      self->delayed_send(self, s.settings.drain_timeout, drain_deadline_atom::value);
      check_drained(self);
    },
    [=](drain_deadline_atom) { close_consumer(self); },
    [=](blocked_atom, const produce_blocked& b) {
      auto& s = self->state;
      const partition_id p{b.from_topic, b.from_partition};
      if (s.core->set_blocked(p, b.from_offset, b.blocked)) {
        publish(self);
        if (b.blocked) {
          log::error(
            "partition held: one of its records cannot be written to a retry tier or "
            "the DLQ; it is produced again until the topic is fixed",
            {{"route", s.settings.route},
             {"partition", name_of(p)},
             {"offset", b.from_offset},
             {"destination", b.destination},
             {"reason", b.reason}});
        } else {
          log::info("partition resumed: its held record was written",
                    {{"route", s.settings.route}, {"partition", name_of(p)}});
        }
      }
    },
    [=](due_atom, const std::string& topic, std::int32_t partition) {
      if (!self->state.closed) {
        self->state.core->wake(partition_id{topic, partition}, now_ms());
        publish(self);
      }
    },
  };
}

}  // namespace courier::actors
