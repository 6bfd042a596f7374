#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/route_metrics.hpp"
#include "actors/actor_time.hpp"
#include "core/delivery/breaker.hpp"

namespace courier::actors {

struct breaker_actor_state {
  static inline const char* name = "courier.breaker";
  std::string route;
  std::string endpoint;  // on a route with several endpoints: the one it guards; else empty
  std::unique_ptr<breaker> machine;
  std::vector<caf::actor> subscribers;
  std::shared_ptr<route_metrics> metrics;
  actor_time time;  // when a change happened, for /state (actor_time.hpp)
};

// One per route (per endpoint on a route with several, named by `endpoint`). Answers permit
// requests, takes one outcome per delivery, moves Open -> Half-Open on a timer and publishes every
// state change to its subscribers.
//   permit_atom                        -> breaker_permit
//   outcome_atom, bool ok, bool probe, uint64 generation, bool gone, int64 retry_after_ms,
//     breaker_failure why (empty for a success)  -> ()
//   subscribe_atom, actor              -> () (the subscriber gets state_atom, breaker_change)
caf::behavior breaker_actor(caf::stateful_actor<breaker_actor_state>* self, std::string route,
                            std::string endpoint, breaker_settings settings,
                            std::shared_ptr<route_metrics> metrics);

}  // namespace courier::actors
