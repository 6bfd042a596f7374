#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/route_metrics.hpp"
#include "core/delivery/breaker.hpp"

namespace courier::actors {

struct pause_controller_state {
  static inline const char* name = "courier.pause_controller";
  std::string route;
  std::chrono::milliseconds pause_after{0};
  std::vector<caf::actor> consumers;
  // The route's endpoints' breakers by address, as their latest changes said; `breakers` of
  // them. Their joint state (joint_state) is what the controller follows.
  std::size_t breakers = 1;
  std::vector<std::pair<caf::actor_addr, breaker_state>> known;
  breaker_state last = breaker_state::closed;
  // When the breaker last left Closed; an episode ends only when it closes again, so a breaker
  // that flaps Open -> Half-Open -> Open keeps counting from the first opening.
  std::optional<caf::actor_clock::time_point> episode_start;
  std::uint64_t generation = 0;
  bool paused = false;
  std::shared_ptr<route_metrics> metrics;
};

// Pauses fetching of the route's partitions when its breaker stays Open longer than
// `pause_after`; resumes exactly those partitions on Half-Open or Closed. A route with several
// endpoints has `breakers` of them: it follows their joint state, Open only while every one is
// (core/delivery/breaker.hpp, joint_state).
//   state_atom, breaker_change  (from a breaker)
//   subscribe_atom, actor       (a consumer of the route)
caf::behavior pause_controller(caf::stateful_actor<pause_controller_state>* self, std::string route,
                               std::chrono::milliseconds pause_after,
                               std::shared_ptr<route_metrics> metrics, std::size_t breakers);

}  // namespace courier::actors
