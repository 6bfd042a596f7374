#pragma once

// What the admin plane holds of a running service: per route what a scrape reads and the two
// actors a route command talks to, the retry router's counters, and the actors the liveness
// check pings. The wiring (topology/admin_handles) fills it; the admin plane sees nothing else
// of the pipeline.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/route_metrics.hpp"
#include "actors/router_metrics.hpp"

namespace courier::admin {

// One endpoint of a route with several (routes[].endpoints): its delivery pool's and breaker's
// metrics.
struct endpoint_handle {
  std::string name;
  std::shared_ptr<actors::route_metrics> metrics;
  caf::actor delivery;      // its delivery pool: takes an operator's pause and resume
  caf::actor auto_redrive;  // none without routes[].auto_redrive
};

struct route_handle {
  std::string name;
  std::string topic;  // the route's source topic
  std::string dlq_topic;
  std::shared_ptr<actors::route_metrics> metrics;
  caf::actor consumer;      // takes and drops pause_reason::operator_request
  caf::actor auto_redrive;  // none without routes[].auto_redrive, or with several endpoints
  // A route with several endpoints: theirs (the route's metrics are its consumer's then); empty
  // for a route with one, whose metrics are its pool's and breaker's too.
  std::vector<endpoint_handle> endpoints;
};

struct service_handles {
  std::vector<route_handle> routes;
  std::shared_ptr<actors::router_metrics> router;
  // Every supervised actor with a name for the liveness answer ("consumer of route shipments").
  std::vector<std::pair<std::string, caf::actor>> actors;
};

}  // namespace courier::admin
