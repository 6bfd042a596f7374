#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include <caf/all.hpp>

namespace courier::actors {

// What one event of an actor decided for each of its peers, gathered to go out as one message
// per peer at the event's end (the delivery pool's outcomes and answered records per consumer,
// the retry router's acknowledgements per requester). Few peers: a vector, searched.
template <class Batch>
using event_batches = std::vector<std::pair<caf::actor, Batch>>;

// The current event's batch for `peer` (the first of it makes one).
template <class Batch>
Batch& batch_for(event_batches<Batch>& batches, const caf::actor& peer) {
  auto to = std::find_if(batches.begin(), batches.end(),
                         [&](const auto& entry) { return entry.first == peer; });
  if (to == batches.end()) {
    to = batches.emplace(batches.end(), peer, Batch{});
  }
  return to->second;
}

}  // namespace courier::actors
