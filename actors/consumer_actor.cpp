#include "actors/consumer_actor.hpp"

#include "actors/failure_log.hpp"

#include <algorithm>
#include <vector>

#include "core/log/json_log.hpp"
#include "core/retry/retry_headers.hpp"

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<consumer_actor_state>*;

std::string name_of(const partition_id& p) {
  return p.topic + "[" + std::to_string(p.partition) + "]";
}

std::size_t total_in_flight(const consumer_actor_state& st) {
  std::size_t n = 0;
  for (const auto& [p, t] : st.trackers) {
    n += t.in_flight();
  }
  return n;
}

// Taken from librdkafka but not handed to the delivery pool yet.
std::size_t undispatched(const consumer_actor_state& st) {
  return st.overflow.size() + st.gate.size();
}

// Records handed to the delivery pool and not finished.
std::size_t outstanding(const consumer_actor_state& st) {
  return total_in_flight(st) - undispatched(st);
}

std::size_t room(const consumer_actor_state& st) {
  const auto dispatched = outstanding(st);
  return st.settings.max_in_flight > dispatched ? st.settings.max_in_flight - dispatched : 0;
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// librdkafka must be polled now and then even when the route is full: rebalance callbacks
// run inside poll, and max.poll.interval.ms evicts a consumer that stops polling.
constexpr auto idle_poll_interval = std::chrono::milliseconds{500};

// Tells librdkafka what the pause book decided; returns the partitions whose reasons changed.
std::vector<std::string> apply(self_ptr self, const partition_pauses::change& c) {
  auto& st = self->state;
  if (!c.pause.empty()) {
    st.kafka->pause(c.pause);
  }
  if (!c.resume.empty()) {
    st.kafka->resume(c.resume);
  }
  st.metrics->paused_partitions = static_cast<std::int64_t>(st.pauses.paused_count());
  std::vector<std::string> names;
  for (const auto& p : c.touched) {
    names.push_back(name_of(p));
  }
  return names;
}

// Sets or clears `reason` on every assigned partition; returns the partitions whose reasons
// changed (a partition stays paused while another reason, such as backpressure, remains).
std::vector<std::string> set_route_reason(self_ptr self, pause_reason reason, bool on) {
  return apply(self, self->state.pauses.set_everywhere(reason, on));
}

// Backpressure per partition, with hysteresis: paused at its bound, resumed at half of it.
// Without a bound of its own (the default) a partition is never paused for backpressure: the
// route's bound stops the poll loop instead, which keeps librdkafka's prefetch (a pause would
// drop it and a resume refetch it, which capped a partition near 500 records/s).
void update_backpressure(self_ptr self) {
  auto& st = self->state;
  const auto high = st.settings.max_in_flight_per_partition;
  if (high == 0) {
    return;
  }
  for (const auto& [p, t] : st.trackers) {
    if (t.in_flight() >= high) {
      if (!apply(self, st.pauses.set(p, pause_reason::backpressure, true)).empty()) {
        ++st.metrics->backpressure_pauses;
      }
    } else if (t.in_flight() <= high / 2) {
      apply(self, st.pauses.set(p, pause_reason::backpressure, false));
    }
  }
}

// The head-of-line bound: a head that holds its partition back too far is moved on by the
// delivery pool (to the next retry tier, unless it is held by the breaker or the endpoint).
void check_head(self_ptr self, const partition_id& p, const offset_tracker& t) {
  auto& st = self->state;
  auto it = st.heads.find(p);
  if (it == st.heads.end()) {
    return;
  }
  if (const auto head = it->second.check(t)) {
    self->send(st.delivery, expedite_atom::value, p.topic, p.partition, *head);
  }
}

void store(self_ptr self, const partition_id& p, const offset_tracker& t) {
  if (auto next = t.committable()) {
    self->state.kafka->store_offset(p, *next);
  }
}

void on_assigned(self_ptr self, const std::vector<partition_id>& ps) {
  auto& st = self->state;
  std::vector<std::string> names;
  for (const auto& p : ps) {
    st.trackers.emplace(p, offset_tracker{});
    st.heads.insert_or_assign(p, head_of_line_guard{st.settings.head_of_line_records});
    apply(self, st.pauses.assign(p));
    names.push_back(name_of(p));
  }
  log::info("partitions assigned", {{"route", st.settings.route}, {"partitions", names}});
  if (st.draining) {
    // A rebalance while draining: the eager protocol revoked every partition first, so nothing
    // in flight can be committed by this instance any more, and sitting on the new assignment
    // until the drain deadline would leave it without a consumer. Leave the group now (from a
    // message, not inside this callback, which runs within librdkafka's poll).
    log::info("assigned while draining: leaving the group at once",
              {{"route", st.settings.route}, {"partitions", names}});
    self->send(self, drain_deadline_atom::value);
  }
}

void on_revoked(self_ptr self, const std::vector<partition_id>& ps) {
  auto& st = self->state;
  std::vector<std::string> names;
  for (const auto& p : ps) {
    if (auto it = st.trackers.find(p); it != st.trackers.end()) {
      store(self, p, it->second);
      st.trackers.erase(it);
      st.heads.erase(p);
    }
    st.pauses.revoke(p);  // the wrapper resumes a revoked partition before giving it up
    st.gate.drop(p);
    // Not yet handed out: the partition's next owner fetches them again.
    st.overflow.erase(std::remove_if(st.overflow.begin(), st.overflow.end(),
                                     [&](const record& r) {
                                       return r.topic == p.topic && r.partition == p.partition;
                                     }),
                      st.overflow.end());
    names.push_back(name_of(p));
  }
  st.metrics->paused_partitions = static_cast<std::int64_t>(st.pauses.paused_count());
  log::info("partitions revoked", {{"route", st.settings.route}, {"partitions", names}});
}

void close_consumer(self_ptr self) {
  auto& st = self->state;
  if (st.closed) {
    return;
  }
  st.closed = true;
  for (const auto& [p, t] : st.trackers) {
    store(self, p, t);
  }
  st.kafka->close();
  log::info("consumer closed", {{"route", st.settings.route}, {"in_flight_left", outstanding(st)}});
  self->quit();
}

void check_drained(self_ptr self) {
  auto& st = self->state;
  if (st.draining && outstanding(st) == 0) {
    close_consumer(self);
  }
}

void dispatch(self_ptr self, record&& r) {
  auto& st = self->state;
  self->send(st.delivery, deliver_atom::value, std::move(r));
}

// To the delivery pool when there is room, else to the overflow queue.
void hand_out(self_ptr self, record&& r, bool to_overflow) {
  auto& st = self->state;
  if (to_overflow || room(st) == 0) {
    st.overflow.push_back(std::move(r));
  } else {
    dispatch(self, std::move(r));
  }
}

void schedule_due_check(self_ptr self, const partition_id& p) {
  auto& st = self->state;
  if (auto due = st.gate.next_due(p)) {
    const auto wait = std::chrono::milliseconds{std::max<std::int64_t>(0, *due - now_ms()) + 1};
    self->delayed_send(self, wait, due_atom::value, p.topic, p.partition);
  }
}

void set_partition_reason(self_ptr self, const partition_id& p, pause_reason reason, bool on) {
  apply(self, self->state.pauses.set(p, reason, on));
}

// Retry-tier records wait for their due time in the gate; their partition is paused meanwhile
// and resumed once the gate lets the last of them go.
void gate_or_hand_out(self_ptr self, record&& r, bool to_overflow) {
  auto& st = self->state;
  if (st.settings.gated_topics.count(r.topic) == 0) {
    hand_out(self, std::move(r), to_overflow);
    return;
  }
  std::int64_t due = 0;
  try {
    due = read_retry_state(r.headers).due_ms.value_or(0);
  } catch (const header_error& e) {
    log::warn(
      "retry record with a malformed due time; delivering it now",
      {{"topic", r.topic}, {"partition", r.partition}, {"offset", r.offset}, {"error", e.what()}});
  }
  const partition_id p{r.topic, r.partition};
  const bool was_holding = st.gate.holds(p);
  auto admitted = st.gate.admit(std::move(r), due, now_ms());
  if (admitted) {
    hand_out(self, std::move(*admitted), to_overflow);
    return;
  }
  if (!was_holding) {
    set_partition_reason(self, p, pause_reason::retry_due, true);
    schedule_due_check(self, p);
  }
}

void on_due(self_ptr self, const partition_id& p) {
  auto& st = self->state;
  for (auto& r : st.gate.release(p, now_ms())) {
    hand_out(self, std::move(r), /*to_overflow=*/false);
  }
  if (st.gate.holds(p)) {
    schedule_due_check(self, p);
  } else {
    set_partition_reason(self, p, pause_reason::retry_due, false);
  }
}

// Takes records from librdkafka and tracks them; returns how many were taken.
std::size_t take(self_ptr self, std::chrono::milliseconds timeout, std::size_t max_records,
                 bool to_overflow) {
  auto& st = self->state;
  auto records = st.kafka->poll(timeout, max_records);
  st.last_poll = self->clock().now();
  std::size_t taken = 0;
  for (auto& r : records) {
    auto it = st.trackers.find(partition_id{r.topic, r.partition});
    if (it == st.trackers.end()) {
      continue;  // revoked while the record was in the poll's hands
    }
    if (!it->second.track(r.offset)) {
      // A rewind re-delivered a record this consumer holds or finished: the copy it has (or
      // had) is the one that counts; handing this one out too would make the in-flight
      // bookkeeping disagree with the tracker.
      ++st.metrics->rewound_duplicates;
      continue;
    }
    ++st.metrics->fetched;
    ++taken;
    const partition_id p{r.topic, r.partition};
    gate_or_hand_out(self, std::move(r), to_overflow);
    check_head(self, p, it->second);
  }
  return taken;
}

void arm_idle_timer(self_ptr self) {
  auto& st = self->state;
  if (!st.idle_timer_armed) {
    st.idle_timer_armed = true;
    self->delayed_send(self, idle_poll_interval, poll_idle_atom::value);
  }
}

// One turn of the poll loop. The loop keeps itself going while there is room; a full route
// stops it until an outcome frees room, with a rare idle poll in between.
void poll_turn(self_ptr self) {
  auto& st = self->state;
  while (room(st) > 0 && !st.overflow.empty()) {
    auto r = std::move(st.overflow.front());
    st.overflow.pop_front();
    dispatch(self, std::move(r));
  }
  const auto free = room(st);
  if (free > 0) {
    st.waiting_for_room = false;
    if (take(self, std::chrono::milliseconds{50}, std::min(free, st.settings.max_records_per_poll),
             /*to_overflow=*/false) > 0) {
      update_backpressure(self);
    }
    self->send(self, poll_atom::value);
    return;
  }
  if (self->clock().now() - st.last_poll >= idle_poll_interval) {
    if (take(self, std::chrono::milliseconds{0}, 1, /*to_overflow=*/true) > 0) {
      update_backpressure(self);
    }
  }
  st.waiting_for_room = true;
  arm_idle_timer(self);
}

}  // namespace

caf::behavior consumer_actor(self_ptr self, consumer_actor_settings settings, caf::actor delivery,
                             std::shared_ptr<route_metrics> metrics) {
  log_failures(self, "consumer", settings.route);
  auto& st = self->state;
  st.settings = std::move(settings);
  st.delivery = std::move(delivery);
  st.metrics = std::move(metrics);
  kafka::consumer::callbacks cb;
  cb.on_assigned = [self](const std::vector<partition_id>& ps) { on_assigned(self, ps); };
  cb.on_revoked = [self](const std::vector<partition_id>& ps) { on_revoked(self, ps); };
  cb.on_error = [self](const std::string& message) {
    log::warn("kafka consumer error", {{"route", self->state.settings.route}, {"error", message}});
  };
  st.kafka = std::make_unique<kafka::consumer>(st.settings.kafka, std::move(cb));
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
    [=](outcome_atom, const delivery_outcome& o) {
      auto& s = self->state;
      const partition_id p{o.topic, o.partition};
      auto it = s.trackers.find(p);
      if (it == s.trackers.end()) {
        return;  // revoked: the partition's new owner delivers it again (at-least-once)
      }
      // Delivered, or acknowledged by the broker in a retry tier or the DLQ: done either way.
      switch (o.kind) {
        case outcome_kind::delivered:
        case outcome_kind::retried:
        case outcome_kind::dead_lettered:
          it->second.complete(o.offset);
          store(self, p, it->second);
          check_head(self, p, it->second);
          break;
      }
      update_backpressure(self);
      if (s.waiting_for_room && room(s) > 0) {
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
      set_route_reason(self, pause_reason::shutdown, true);
      log::info("draining", {{"route", s.settings.route},
                             {"in_flight", outstanding(s)},
                             {"timeout_ms", s.settings.drain_timeout.count()}});
      self->delayed_send(self, s.settings.drain_timeout, drain_deadline_atom::value);
      check_drained(self);
    },
    [=](drain_deadline_atom) { close_consumer(self); },
    [=](due_atom, const std::string& topic, std::int32_t partition) {
      if (!self->state.closed) {
        on_due(self, partition_id{topic, partition});
      }
    },
  };
}

}  // namespace courier::actors
