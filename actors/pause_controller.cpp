#include "actors/pause_controller.hpp"

#include "actors/failure_log.hpp"
#include "actors/messages.hpp"
#include "core/log/json_log.hpp"

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<pause_controller_state>*;

void pause_consumer(self_ptr self, const caf::actor& consumer) {
  self->request(consumer, caf::infinite, pause_atom::value, pause_reason::breaker)
    .then([=](const std::vector<std::string>& partitions) {
      log::info("partitions paused",
                {{"route", self->state.route}, {"reason", "breaker"}, {"partitions", partitions}});
    });
}

void resume_consumer(self_ptr self, const caf::actor& consumer) {
  self->request(consumer, caf::infinite, resume_atom::value, pause_reason::breaker)
    .then([=](const std::vector<std::string>& partitions) {
      log::info("partitions resumed",
                {{"route", self->state.route}, {"reason", "breaker"}, {"partitions", partitions}});
    });
}

void pause_all(self_ptr self) {
  auto& st = self->state;
  if (st.paused) {
    return;
  }
  st.paused = true;
  ++st.metrics->actors[route_counter::pauses];
  for (const auto& c : st.consumers) {
    pause_consumer(self, c);
  }
}

void resume_all(self_ptr self) {
  auto& st = self->state;
  if (!st.paused) {
    return;
  }
  st.paused = false;
  ++st.metrics->actors[route_counter::resumes];
  for (const auto& c : st.consumers) {
    resume_consumer(self, c);
  }
}

void on_open(self_ptr self) {
  auto& st = self->state;
  const auto now = self->clock().now();
  if (!st.episode_start) {
    st.episode_start = now;
  }
  const auto elapsed = now - *st.episode_start;
  if (elapsed >= st.pause_after) {
    pause_all(self);
    return;
  }
  const auto remaining =
    std::chrono::duration_cast<std::chrono::milliseconds>(st.pause_after - elapsed);
  self->delayed_send(self, remaining, pause_check_atom::value, ++st.generation);
}

}  // namespace

caf::behavior pause_controller(self_ptr self, std::string route,
                               std::chrono::milliseconds pause_after,
                               std::shared_ptr<route_metrics> metrics) {
  log_failures(self, "pause_controller", route);
  self->state.route = std::move(route);
  self->state.pause_after = pause_after;
  self->state.metrics = std::move(metrics);
  return {
    [=](state_atom, const breaker_change& change) {
      auto& st = self->state;
      st.last = change.to;
      switch (change.to) {
        case breaker_state::open:
          on_open(self);
          break;
        case breaker_state::half_open:
          ++st.generation;
          resume_all(self);
          break;
        case breaker_state::closed:
          ++st.generation;
          st.episode_start.reset();
          resume_all(self);
          break;
      }
    },
    [=](pause_check_atom, std::uint64_t generation) {
      auto& st = self->state;
      if (generation == st.generation && st.last == breaker_state::open) {
        pause_all(self);
      }
    },
    [=](subscribe_atom, caf::actor consumer) {
      auto& st = self->state;
      if (st.paused) {
        pause_consumer(self, consumer);
      }
      st.consumers.push_back(std::move(consumer));
    },
  };
}

}  // namespace courier::actors
