#pragma once

// A retry router for tests in which nothing moves to a retry tier: it acknowledges every onward
// record at once, so the delivery pool's router only has to exist.

#include <cstdint>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"

namespace courier::testing {

inline caf::actor spawn_acknowledging_router(caf::actor_system& sys) {
  // The int: CAF 0.17 dereferences a null argument tuple when an actor is spawned without any.
  return sys.spawn(
      [](caf::event_based_actor* self, int) -> caf::behavior {
        return {[self](actors::route_atom, const std::vector<onward_record>& batch) {
          std::vector<std::uint64_t> tags;
          for (const auto& r : batch) {
            tags.push_back(r.tag);
          }
          self->send(caf::actor_cast<caf::actor>(self->current_sender()),
                     actors::onward_acked_atom::value, std::move(tags));
        }};
      },
      0);
}

}  // namespace courier::testing
