#pragma once

#include "actors/auto_redrive_actor.hpp"
#include "core/config/config.hpp"

namespace courier::topology {

// The runner of a route's auto-redrive events: core/redrive's move_records over the route's
// DLQ, back to its source, selecting the records of the event's window (courier.last.failure in
// [since, until)) whose courier.error.class is one of routes[].auto_redrive.classes and whose
// origin is the route's source, at most `rate` a second and `max` an event, through redrive's
// ledger (<dlq>.redriven) and transactions: a record is never moved twice, by an event, another
// instance's or a person's redrive. Connects as the route's consumers do (kafka.properties).
// With `endpoint` (one of a route with several): only the DLQ records of that endpoint
// (courier.endpoint), which go back to it alone.
actors::auto_redrive_runner redrive_runner(const courier_config& cfg, const route_config& route,
                                           const std::string& endpoint = {});

}  // namespace courier::topology
