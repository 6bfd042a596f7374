#pragma once

// A retry router for tests in which nothing moves to a retry tier: it acknowledges every onward
// record at once, so the delivery pool's router only has to exist.

#include <caf/all.hpp>

#include "actors/messages.hpp"

namespace courier::testing {

inline caf::actor spawn_acknowledging_router(caf::actor_system& sys) {
  // The int: CAF 0.17 dereferences a null argument tuple when an actor is spawned without any.
  return sys.spawn(
      [](caf::event_based_actor*, int) -> caf::behavior {
        return {[](actors::route_atom, const onward_record&) { return true; }};
      },
      0);
}

}  // namespace courier::testing
