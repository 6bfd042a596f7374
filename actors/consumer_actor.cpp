#include "actors/consumer_actor.hpp"

#include <algorithm>
#include <vector>

#include "core/json_log.hpp"

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<consumer_actor_state>*;
using kafka::partition_id;

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

std::size_t total_held(const consumer_actor_state& st) {
  std::size_t n = 0;
  for (const auto& [p, count] : st.held) {
    n += count;
  }
  return n;
}

// Records handed to the delivery pool and not finished (held ones are not coming back).
std::size_t outstanding(const consumer_actor_state& st) {
  return total_in_flight(st) - total_held(st) - st.overflow.size();
}

std::size_t room(const consumer_actor_state& st) {
  const auto dispatched = total_in_flight(st) - total_held(st) - st.overflow.size();
  return st.settings.max_in_flight > dispatched ? st.settings.max_in_flight - dispatched : 0;
}

// librdkafka must be polled now and then even when the route is full: rebalance callbacks
// run inside poll, and max.poll.interval.ms evicts a consumer that stops polling.
constexpr auto idle_poll_interval = std::chrono::milliseconds{500};

// Brings librdkafka's pause flag of `p` in line with its reasons. Returns true if it changed.
// Never resumes a partition that is not paused (librdkafka 2.0.2 can rewind then).
bool reconcile(self_ptr self, const partition_id& p) {
  auto& st = self->state;
  const auto it = st.reasons.find(p);
  const bool want_paused = it != st.reasons.end() && !it->second.empty();
  const bool is_paused = st.paused.count(p) > 0;
  if (want_paused && !is_paused) {
    st.kafka->pause({p});
    st.paused.insert(p);
    return true;
  }
  if (!want_paused && is_paused) {
    st.kafka->resume({p});
    st.paused.erase(p);
    return true;
  }
  return false;
}

void update_paused_gauge(consumer_actor_state& st) {
  st.metrics->paused_partitions = static_cast<std::int64_t>(
    std::count_if(st.paused.begin(), st.paused.end(),
                  [&](const partition_id& p) { return st.trackers.count(p) > 0; }));
}

// Sets or clears `reason` on every assigned partition; returns the partitions whose reasons
// changed (a partition stays paused while another reason, such as backpressure, remains).
std::vector<std::string> set_route_reason(self_ptr self, pause_reason reason, bool on) {
  auto& st = self->state;
  if (on) {
    st.route_reasons.insert(reason);
  } else {
    st.route_reasons.erase(reason);
  }
  std::vector<std::string> changed;
  for (const auto& [p, t] : st.trackers) {
    auto& r = st.reasons[p];
    const bool had = r.count(reason) > 0;
    if (on) {
      r.insert(reason);
    } else {
      r.erase(reason);
    }
    reconcile(self, p);
    if (had != on) {
      changed.push_back(name_of(p));
    }
  }
  update_paused_gauge(st);
  return changed;
}

// Backpressure per partition, with hysteresis: paused at its bound, resumed at half of it.
void update_backpressure(self_ptr self) {
  auto& st = self->state;
  const auto high = st.settings.max_in_flight_per_partition;
  for (const auto& [p, t] : st.trackers) {
    auto& r = st.reasons[p];
    if (t.in_flight() >= high) {
      r.insert(pause_reason::backpressure);
    } else if (t.in_flight() <= high / 2) {
      r.erase(pause_reason::backpressure);
    }
    reconcile(self, p);
  }
  update_paused_gauge(st);
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
    st.reasons[p] = st.route_reasons;
    reconcile(self, p);
    names.push_back(name_of(p));
  }
  update_paused_gauge(st);
  log::info("partitions assigned", {{"route", st.settings.route}, {"partitions", names}});
}

void on_revoked(self_ptr self, const std::vector<partition_id>& ps) {
  auto& st = self->state;
  std::vector<std::string> names;
  for (const auto& p : ps) {
    if (auto it = st.trackers.find(p); it != st.trackers.end()) {
      store(self, p, it->second);
      st.trackers.erase(it);
    }
    st.reasons.erase(p);
    st.held.erase(p);
    // Not yet handed out: the partition's next owner fetches them again.
    st.overflow.erase(std::remove_if(st.overflow.begin(), st.overflow.end(),
                                     [&](const record& r) {
                                       return r.topic == p.topic && r.partition == p.partition;
                                     }),
                      st.overflow.end());
    st.paused.erase(p);  // the wrapper resumes a revoked partition before giving it up
    names.push_back(name_of(p));
  }
  update_paused_gauge(st);
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
  log::info("consumer closed", {{"route", st.settings.route},
                                {"in_flight_left", outstanding(st)}});
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
    it->second.track(r.offset);
    ++st.metrics->fetched;
    ++taken;
    if (to_overflow) {
      st.overflow.push_back(std::move(r));
    } else {
      dispatch(self, std::move(r));
    }
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
      switch (o.kind) {
        case outcome_kind::delivered:
          it->second.complete(o.offset);
          store(self, p, it->second);
          break;
        case outcome_kind::permanent:
          ++s.held[p];
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
  };
}

}  // namespace courier::actors
