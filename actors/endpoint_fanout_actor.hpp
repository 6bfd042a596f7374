#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "core/routing/endpoint_fanout.hpp"

namespace courier::actors {

struct endpoint_fanout_state {
  static inline const char* name = "courier.endpoint_fanout";
  std::string route;
  std::optional<routing::endpoint_fanout> fanout;  // decides; the actor sends
  std::vector<caf::actor> pools;  // one delivery pool per endpoint, in the routing's order
  caf::actor consumer;            // the sender of the records (the route's consumer)
};

// A route with several endpoints (routes[].endpoints): stands where one delivery pool stands
// for a route with one, so the consumer speaks to it as to a pool. It sends each record's copies
// to the pools of the endpoints it is for (core/routing/endpoint_fanout.hpp), and the record's
// one outcome to the consumer once every copy has its own.
//   deliver_atom, record_batch     (from the consumer)
//   outcome_atom, outcome_batch    (from an endpoint's pool)
//   receipt_atom, answered_batch   (from an endpoint's pool: a copy answered 2xx; the record
//                                   to the consumer once no copy waits for its answer)
//   expedite_atom, record_position (from the consumer: to every pool; the one that has it acts)
//   share_atom, assigned, topic_partitions  (from the consumer: to every pool)
//   blocked_atom, onward_blocked   (from a pool: to the consumer)
caf::behavior endpoint_fanout_actor(caf::stateful_actor<endpoint_fanout_state>* self,
                                    std::string route, routing::endpoint_fanout fanout,
                                    std::vector<caf::actor> pools);

}  // namespace courier::actors
