#include "actors/breaker_actor.hpp"

#include <algorithm>
#include <chrono>

#include "actors/failure_log.hpp"
#include "actors/messages.hpp"
#include "core/log/json_log.hpp"

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<breaker_actor_state>*;

// The timer of the current Open episode; none while it is gone with no probe interval. The trip
// count tells a stale timer from the current one.
void schedule_probe(self_ptr self, caf::actor_clock::time_point now) {
  const auto& m = *self->state.machine;
  const auto due = m.next_probe_at();
  if (!due) {
    return;
  }
  const auto wait = std::chrono::ceil<std::chrono::milliseconds>(*due - now);
  self->delayed_send(self, std::max(wait, std::chrono::milliseconds{1}), open_expired_atom::value,
                     m.trips());
}

void publish(self_ptr self, const breaker_transition& t) {
  auto& st = self->state;
  st.metrics->breaker_state = static_cast<int>(t.to);
  st.metrics->breaker_since_ms = now_ms(self);
  if (t.to == breaker_state::open && t.from == breaker_state::closed) {
    ++st.metrics->actors[route_counter::breaker_trips];
  }
  switch (t.to) {
    case breaker_state::closed:
      ++st.metrics->actors[route_counter::breaker_to_closed];
      break;
    case breaker_state::open:
      ++st.metrics->actors[route_counter::breaker_to_open];
      break;
    case breaker_state::half_open:
      ++st.metrics->actors[route_counter::breaker_to_half_open];
      break;
  }
  nlohmann::json fields{{"route", st.route},
                        {"from", std::string{to_string(t.from)}},
                        {"to", std::string{to_string(t.to)}},
                        {"trips", st.machine->trips()}};
  if (!st.endpoint.empty()) {
    fields["endpoint"] = st.endpoint;
  }
  if (t.to == breaker_state::open) {
    // Why it opened: otherwise only the tier records' headers say it (a TLS failure's reason).
    const auto& why = st.machine->last_failure();
    fields["error_class"] = why.error_class;
    fields["error"] = why.message;
  }
  log::info("breaker state change", fields);
  for (const auto& s : st.subscribers) {
    self->send(s, state_atom::value,
               breaker_change{st.route, t.from, t.to, st.machine->generation()});
  }
  if (t.to == breaker_state::open) {
    schedule_probe(self, self->clock().now());
  }
}

void publish_if(self_ptr self, const std::optional<breaker_transition>& t) {
  if (t) {
    publish(self, *t);
  }
}

}  // namespace

caf::behavior breaker_actor(self_ptr self, std::string route, std::string endpoint,
                            breaker_settings settings, std::shared_ptr<route_metrics> metrics) {
  log_failures(self, "breaker", route);
  self->state.route = std::move(route);
  self->state.endpoint = std::move(endpoint);
  self->state.machine = std::make_unique<breaker>(settings);
  self->state.metrics = std::move(metrics);
  self->state.time.start(self->clock().now());
  return {
    [=](permit_atom) -> breaker_permit {
      auto& m = *self->state.machine;
      const bool probe = m.state() == breaker_state::half_open;
      const bool granted = m.try_acquire(self->clock().now());
      return breaker_permit{granted, granted && probe, m.generation()};
    },
    [=](outcome_atom, bool ok, bool probe, std::uint64_t generation, bool gone,
        std::int64_t retry_after_ms, const breaker_failure& why) {
      auto& m = *self->state.machine;
      if (gone) {
        // A 410 speaks for the endpoint now, whichever generation its delivery began in.
        const auto now = self->clock().now();
        const bool was_gone = m.gone();
        auto t = m.on_gone(now, why);
        if (t) {
          publish(self, *t);
        } else if (!was_gone && m.state() == breaker_state::open) {
          schedule_probe(self, now);  // Open already: its timer now follows the gone interval
        }
        return;
      }
      // A delivery that began in an earlier generation (before a trip) does not count now.
      if (generation != m.generation()) {
        return;
      }
      // In Half-Open only the probe decides; late results of older deliveries do not.
      if (m.state() == breaker_state::half_open && !probe) {
        return;
      }
      const auto now = self->clock().now();
      publish_if(self, ok ? m.on_success(now)
                          : m.on_failure(now, std::chrono::milliseconds{retry_after_ms}, why));
    },
    [=](open_expired_atom, std::uint64_t trips) {
      auto& m = *self->state.machine;
      if (m.state() != breaker_state::open || m.trips() != trips) {
        return;
      }
      const auto now = self->clock().now();
      auto t = m.on_open_timeout(now);
      if (t) {
        publish(self, *t);
        return;
      }
      // The timer fired early (or the breaker went gone meanwhile): wait for the rest.
      schedule_probe(self, now);
    },
    [=](subscribe_atom, caf::actor subscriber) {
      auto& st = self->state;
      const auto current = st.machine->state();
      self->send(subscriber, state_atom::value,
                 breaker_change{st.route, current, current, st.machine->generation()});
      st.subscribers.push_back(std::move(subscriber));
    },
  };
}

}  // namespace courier::actors
