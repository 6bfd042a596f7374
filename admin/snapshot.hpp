#pragma once

// What the admin plane reads of a route and of the retry router at scrape time: their counters
// and gauges, loaded once per request (relaxed loads: no lock, nothing allocated per record).
// The pages (/metrics, /state) and the readiness verdict are pure functions of these.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "actors/route_metrics.hpp"
#include "actors/router_metrics.hpp"

namespace courier::admin {

// One route's counters and gauges, read from its route_metrics at scrape time (relaxed loads:
// no lock, nothing allocated per record).
struct route_snapshot {
  std::string name;
  std::string topic;
  std::string dlq_topic;
  // The route's counter tables (actors/route_metrics.hpp), loaded.
  delivery_counts deliveries;
  consumer_counts consumer;
  metrics::counter_array<actors::route_counter, std::uint64_t> actors;
  // The route's gauge table (actors/route_gauges.hpp), loaded.
  metrics::gauge_array<actors::route_gauge, std::int64_t> gauges;
  int breaker_state = 0;  // courier::breaker_state: 0 closed, 1 open, 2 half-open
  double rate_limit = 0;  // this instance's share of routes[].rate_limit; 0: none
  bool assigned = false;
  bool draining = false;
  std::int64_t last_poll_steady_ms = 0;  // the consumer's last poll (0: not yet)
  std::int64_t taken_at_ms = 0;          // Unix ms when the snapshot was taken (ages count to it)
  // Records this instance wrote to the route's DLQ topic, by error class (the retry router's
  // counts; a DLQ shared by routes shows the DLQ's).
  std::map<std::string, std::uint64_t> dead_lettered_by_class;
  bool operator_paused = false;  // POST /routes/<name>/pause, until /resume
  bool auto_redrive = false;     // routes[].auto_redrive is on (its phases are gauges)
  bool broker_reachable = true;
  bool endpoint_blocked = false;      // the SSRF guard refuses the endpoint now
  bool endpoint_gone = false;         // the receiver answered 410 and no 2xx came since
  std::int64_t breaker_since_ms = 0;  // the breaker's last change (0: closed since start)
  std::vector<actors::partition_report> partitions;
  const metrics::histogram* request_seconds = nullptr;   // rendered when set
  const metrics::histogram* delivery_seconds = nullptr;  // rendered when set
  const metrics::histogram* fetch_seconds = nullptr;     // rendered when set
  // A route with several endpoints: each endpoint's snapshot (its pool's and breaker's values),
  // which the route's delivery counters, breaker counters and delivery gauges add up
  // (add_endpoint).
  std::vector<route_snapshot> endpoints;
};

route_snapshot snapshot_of(std::string name, const actors::route_metrics& m);

// Adds an endpoint's snapshot to its route's: the delivery and breaker counters and the delivery
// gauges summed, the flags of any endpoint, the breaker Open if one is (else Half-Open if one is),
// the quota shares summed; the endpoint is kept in `route.endpoints`.
void add_endpoint(route_snapshot& route, route_snapshot endpoint);

// The retry router's counters (one router for every route).
struct router_snapshot {
  std::uint64_t produced = 0;
  std::uint64_t produce_failures = 0;
  std::int64_t records_failing = 0;
  std::uint64_t producer_rebuilds = 0;
  std::map<std::pair<std::string, std::string>, std::uint64_t> produced_by;  // (topic, class)
};

router_snapshot snapshot_of(const actors::router_metrics& m);

}  // namespace courier::admin
