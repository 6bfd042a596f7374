#include "actors/pause_controller.hpp"

#include <algorithm>
#include <vector>

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

// The joint state of the route's breakers after `from` changed to `to`.
breaker_state joint_of(pause_controller_state& st, const caf::actor_addr& from, breaker_state to) {
  auto it =
    std::find_if(st.known.begin(), st.known.end(), [&](const auto& b) { return b.first == from; });
  if (it == st.known.end()) {
    st.known.emplace_back(from, to);
  } else {
    it->second = to;
  }
  std::vector<breaker_state> states;
  states.reserve(st.known.size());
  for (const auto& b : st.known) {
    states.push_back(b.second);
  }
  return joint_state(states, st.breakers);
}

}  // namespace

caf::behavior pause_controller(self_ptr self, std::string route,
                               std::chrono::milliseconds pause_after,
                               std::shared_ptr<route_metrics> metrics, std::size_t breakers) {
  log_failures(self, "pause_controller", route);
  self->state.route = std::move(route);
  self->state.pause_after = pause_after;
  self->state.metrics = std::move(metrics);
  self->state.breakers = breakers;
  return {
    [=](state_atom, const breaker_change& change) {
      auto& st = self->state;
      const auto joint =
        joint_of(st, self->current_sender() ? self->current_sender()->address() : caf::actor_addr{},
                 change.to);
      if (joint == st.last && joint != breaker_state::open) {
        return;  // another endpoint's change that leaves the route as it was
      }
      st.last = joint;
      switch (joint) {
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
