#include "actors/consumer_actor.hpp"

#include <utility>
#include <vector>

#include "actors/consumer_loop.hpp"
#include "actors/failure_log.hpp"
#include "core/kafka/split_consumer.hpp"
#include "core/log/json_log.hpp"
#include "core/retry/retry_headers.hpp"

namespace courier::actors {

using namespace consumer_loop;  // NOLINT(google-build-using-namespace): the actor's own helpers

std::unique_ptr<kafka::group_consumer> open_kafka_consumer(const kafka::consumer_settings& s,
                                                           kafka::consumer::callbacks cb) {
  return kafka::open_group_member(s, std::move(cb));
}

caf::behavior consumer_actor(self_ptr self, consumer_actor_settings settings, caf::actor delivery,
                             std::shared_ptr<route_metrics> metrics) {
  log_failures(self, "consumer", settings.route);
  auto& st = self->state;
  st.settings = std::move(settings);
  st.metrics = std::move(metrics);
  st.time.start(self->clock().now());
  st.io.emplace(self, std::move(delivery), st.time);
  st.core.emplace(st.settings.core, *st.io);
  st.revoke_io.emplace(self);
  st.drain.emplace(*st.core, *st.revoke_io, st.settings.revoke_drain_timeout);
  // Behind: more than twice the route's bound waits in Kafka (in flight and the prefetch
  // count in the lag too, up to about the bound when caught up).
  st.starvation.emplace(static_cast<std::int64_t>(2 * st.settings.core.max_in_flight));
  kafka::consumer::callbacks cb;
  cb.on_assigned = [self](const std::vector<assigned_partition>& ps) { on_assigned(self, ps); };
  cb.on_revoked = [self](const std::vector<partition_id>& ps, bool lost) {
    return on_revoked(self, ps, lost);
  };
  cb.on_committed = [self](const std::vector<commit_outcome>& outcomes) {
    on_committed(self, outcomes);
  };
  cb.on_error = [self](const std::string& message) {
    log::warn("kafka consumer error", {{"route", self->state.settings.route}, {"error", message}});
  };
  cb.on_broker_up = [self](bool up) {
    auto& m = *self->state.metrics;
    if (m.broker_reachable.exchange(up) != up) {
      log::warn(up ? "the broker is reachable again" : "the broker is unreachable",
                {{"route", self->state.settings.route}});
    }
  };
  cb.on_positions = [self](const std::vector<kafka::partition_position>& ps) {
    on_positions(self, ps);
  };
  st.kafka = st.settings.open_consumer(st.settings.kafka, std::move(cb));
  st.io->attach(st.kafka.get());
  self->send(self, poll_atom::value);
  self->delayed_send(self, st.settings.commit_interval, commit_atom::value);
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
    [=](outcome_atom, const outcome_batch& outcomes) { on_outcomes(self, outcomes); },
    [=](pause_atom, pause_reason reason) { return set_route_reason(self, reason, true); },
    [=](resume_atom, pause_reason reason) { return set_route_reason(self, reason, false); },
    [=](drain_atom) { start_drain(self); },
    [=](drain_deadline_atom) { close_consumer(self); },
    [=](commit_atom) {
      if (!self->state.closed) {
        commit_moved(self, kafka::commit_mode::async);
        self->delayed_send(self, self->state.settings.commit_interval, commit_atom::value);
      }
    },
    [=](revoke_deadline_atom, std::uint64_t n) { self->state.drain->on_deadline(n, now_ms(self)); },
    [=](blocked_atom, const onward_blocked& b) { on_blocked(self, b); },
    [=](followers_atom, const record_position& at) {
      return followers_value(self->state.core->later_of_key(at));
    },
    [=](due_atom, const std::string& topic, std::int32_t partition, std::int64_t armed_for_ms) {
      if (!self->state.closed) {
        self->state.core->wake(partition_id{topic, partition}, now_ms(self), armed_for_ms);
        publish(self);
      }
    },
  };
}

}  // namespace courier::actors
