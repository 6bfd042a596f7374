#pragma once

// The route's gauges that are counts of something now, declared once: the enum, and the table
// the admin plane renders /metrics and /state from. (The breaker's state, the flags and the
// readiness facts have names of their own in route_metrics: verdicts read them.)

#include <array>
#include <cstdint>

#include "core/metrics/gauge_table.hpp"

namespace courier::actors {

enum class route_gauge : std::uint8_t {
  in_flight,            // records taken, not yet done (the consumer's count, by the pool)
  concurrency_limit,    // the adaptive limit of attempts in flight; 0: off
  attempts_in_flight,   // HTTP attempts posted, not answered
  rate_limit_waiting,   // attempts waiting for a token of routes[].rate_limit
  credentials_waiting,  // attempts waiting for the route's first credentials (routes[].auth)
  paused_partitions,    // partitions paused now
  // routes[].auto_redrive (one per route, or per endpoint of a route with several), by phase:
  auto_redrive_watching,  // an outage seen (breaker Open), waiting for it to close
  auto_redrive_armed,     // closed again, waiting for `after` before the event runs
  auto_redrive_running,   // an event returning DLQ records to the source now
};

}  // namespace courier::actors

template <>
struct courier::metrics::gauge_table<courier::actors::route_gauge> {
  using g = courier::actors::route_gauge;
  static constexpr std::array<gauge_spec<g>, 9> rows{{
    {g::in_flight, "/in_flight", "courier_in_flight", "Records in flight (taken, not yet done)."},
    {g::concurrency_limit, "/concurrency_limit", "courier_concurrency_limit",
     "The adaptive limit of HTTP attempts in flight (adaptive_concurrency); 0 when off."},
    {g::attempts_in_flight, "/attempts_in_flight", "courier_attempts_in_flight",
     "HTTP attempts posted and not answered yet (records waiting for a token, a slot, the "
     "breaker or their backoff are in courier_in_flight, not here)."},
    {g::rate_limit_waiting, "/rate_limit/waiting", "courier_rate_limit_waiting",
     "Attempts waiting for a token of the route's rate limit (queued, holding no connection)."},
    {g::credentials_waiting, "/credentials_waiting", "courier_credentials_waiting",
     "Attempts waiting for the route's first credentials (routes[].auth)."},
    {g::paused_partitions, "/paused_partitions", "courier_partitions_paused",
     "Partitions paused now."},
    {g::auto_redrive_watching, "/auto_redrive/watching", "courier_auto_redrive_watching",
     "Auto-redrives that saw their breaker open and wait for it to close (routes[].auto_redrive)."},
    {g::auto_redrive_armed, "/auto_redrive/armed", "courier_auto_redrive_armed",
     "Auto-redrives whose breaker closed again, waiting for `after` before their event runs."},
    {g::auto_redrive_running, "/auto_redrive/running", "courier_auto_redrive_running",
     "Auto-redrive events returning DLQ records to the source now."},
  }};
};
static_assert(courier::metrics::gauges_are_in_order<courier::actors::route_gauge>());
