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

// Records still on their way to the receiver (held ones are not coming back).
std::size_t outstanding(const consumer_actor_state& st) {
  return total_in_flight(st) - total_held(st);
}

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

// Backpressure: a partition over its own bound, or every partition when the route is full.
void update_backpressure(self_ptr self) {
  auto& st = self->state;
  const bool route_full = total_in_flight(st) >= st.settings.max_in_flight;
  for (const auto& [p, t] : st.trackers) {
    const bool over = route_full || t.in_flight() >= st.settings.max_in_flight_per_partition;
    auto& r = st.reasons[p];
    if (over) {
      r.insert(pause_reason::backpressure);
    } else {
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

void poll_once(self_ptr self) {
  auto& st = self->state;
  const auto in_flight = total_in_flight(st);
  const auto room = st.settings.max_in_flight > in_flight ? st.settings.max_in_flight - in_flight
                                                          : std::size_t{0};
  const auto budget = std::max<std::size_t>(1, std::min(room, st.settings.max_records_per_poll));
  auto records = st.kafka->poll(std::chrono::milliseconds{50}, budget);
  for (auto& r : records) {
    const partition_id p{r.topic, r.partition};
    auto it = st.trackers.find(p);
    if (it == st.trackers.end()) {
      continue;  // revoked while the record was in the poll's hands
    }
    it->second.track(r.offset);
    ++st.metrics->fetched;
    self->send(st.delivery, deliver_atom::value, std::move(r));
  }
  if (!records.empty()) {
    update_backpressure(self);
  }
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
      if (self->state.closed) {
        return;
      }
      poll_once(self);
      self->send(self, poll_atom::value);
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
