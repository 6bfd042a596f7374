#pragma once

// What the route's actors count themselves, outside a core state machine (the consumer actor,
// the pause controller, the breaker actor), declared once: the enum, and the table the admin
// listener renders /metrics and /state from.

#include <array>
#include <cstdint>

#include "core/metrics/counter_table.hpp"

namespace courier::actors {

enum class route_counter : std::uint8_t {
  pauses,             // the pause controller paused the route's partitions
  resumes,            // and resumed them
  commit_failures,    // offset commits the broker refused
  fetch_starved,      // statistics intervals starved for records (core/flow/fetch_starvation)
  polls,              // librdkafka polls of the consumer, paused or not
  breaker_trips,      // Closed -> Open
  breaker_to_closed,  // every breaker transition by the state it went to
  breaker_to_open,
  breaker_to_half_open,
  auto_redrive_events,  // routes[].auto_redrive runs started
  auto_redrive_moved,   // DLQ records they returned to the source
  auto_redrive_failed,  // records they could not move, and runs that failed
};

}  // namespace courier::actors

template <>
struct courier::metrics::counter_table<courier::actors::route_counter> {
  using c = courier::actors::route_counter;
  static constexpr std::array<counter_spec<c>, 12> rows{{
    {c::pauses, "pauses", "courier_pauses_total", "Times the route's partitions were paused."},
    {c::resumes, "resumes", "courier_resumes_total", "Times the route's partitions were resumed."},
    {c::commit_failures, "commit_failures", "courier_commit_failures_total",
     "Offset commits of the route's consumer that failed (its records are delivered again "
     "after a restart or rebalance)."},
    {c::fetch_starved, "fetch_starved", "courier_consumer_fetch_starved_total",
     "Statistics intervals in which the route waited for records a quarter of the time "
     "while its partitions lagged: librdkafka's prefetch (queued.max.messages.kbytes) is "
     "smaller than a second of deliveries."},
    {c::polls, "polls", "courier_consumer_polls_total",
     "Polls of librdkafka by the route's consumer; they go on while every partition is paused, "
     "so the consumer keeps its partitions."},
    {c::breaker_trips, "", "courier_breaker_trips_total", "Times the circuit breaker opened."},
    {c::breaker_to_closed, "", "courier_breaker_transitions_total",
     "Circuit breaker state changes by the state entered (a failed probe re-enters open).", "to",
     "closed"},
    {c::breaker_to_open, "", "courier_breaker_transitions_total", {}, "to", "open"},
    {c::breaker_to_half_open, "", "courier_breaker_transitions_total", {}, "to", "half_open"},
    {c::auto_redrive_events, "auto_redrive_events", "courier_auto_redrive_events_total",
     "Auto-redrive runs the route started after its breaker closed (routes[].auto_redrive)."},
    {c::auto_redrive_moved, "auto_redrive_moved", "courier_auto_redrive_moved_total",
     "DLQ records auto-redrive returned to the route's source topic."},
    {c::auto_redrive_failed, "auto_redrive_failed", "courier_auto_redrive_failed_total",
     "DLQ records auto-redrive could not move, plus runs that failed to start or were cut "
     "short by a Kafka error."},
  }};
};
static_assert(courier::metrics::counters_are_in_order<courier::actors::route_counter>());
