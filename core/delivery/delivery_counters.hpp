#pragma once

// What the attempt policy counts (core/delivery/attempt_policy.hpp), declared once: the enum,
// and the table the admin listener renders /metrics and /state from.

#include <array>
#include <cstdint>

#include "core/metrics/counter_table.hpp"

namespace courier {

enum class delivery_counter : std::uint8_t {
  delivered,           // the receiver answered 2xx
  retried,             // acknowledged in a retry tier
  dead_lettered,       // acknowledged in the DLQ
  attempts,            // HTTP requests sent
  retries,             // attempts that were a retry of an earlier one (in-process backoff)
  exhausted,           // attempt sequences that ran out
  permanent,           // permanent rejections by the receiver
  endpoint_failures,   // answers about the endpoint that hold their record
  ssrf_blocked,        // attempts the SSRF guard refused (held too)
  gone,                // 410 answers (held too)
  head_of_line_moves,  // moved on by the head-of-line bound
  // HTTP attempts by the class of their answer's status; none: a transport error.
  answered_none,
  answered_1xx,
  answered_2xx,
  answered_3xx,
  answered_4xx,
  answered_5xx,
  rate_limited,          // attempts that waited for a token of the route's rate limit
  rate_limited_us,       // how long they waited, in all (rendered in seconds)
  retry_budget_refused,  // retries refused by the retry budget (the record moved on)
  credential_refreshes,  // fresh credentials asked for after a 401
};

template <>
struct metrics::counter_table<delivery_counter> {
  using c = delivery_counter;
  static constexpr std::array<counter_spec<c>, 21> rows{{
      {c::delivered, "delivered", "courier_deliveries_total",
       "Records done by outcome: delivered to the webhook, retried (acknowledged in a retry "
       "tier) or dead_lettered (acknowledged in the DLQ).",
       "outcome", "delivered"},
      {c::retried, "retried", "courier_deliveries_total", {}, "outcome", "retried"},
      {c::dead_lettered,
       "dead_lettered",
       "courier_deliveries_total",
       {},
       "outcome",
       "dead_lettered"},
      {c::attempts, "attempts", "courier_delivery_attempts_total",
       "HTTP requests sent to the webhook."},
      {c::retries, "retries", "courier_delivery_retries_total",
       "Attempts that were a retry of an earlier one."},
      {c::exhausted, "exhausted", "courier_attempts_exhausted_total",
       "Attempt sequences that ran out of attempts."},
      {c::permanent, "permanent", "courier_permanent_rejections_total",
       "Permanent rejections by the webhook (a 4xx about the record)."},
      {c::endpoint_failures, "endpoint_failures", "courier_endpoint_failures_total",
       "Answers about the endpoint (such as 401, 403) that hold their record."},
      {c::ssrf_blocked, "ssrf_blocked", "courier_ssrf_blocked_total",
       "Attempts refused by the SSRF guard: the endpoint resolved to private addresses only."},
      {c::gone, "gone", "courier_endpoint_gone_total",
       "410 Gone answers: the receiver asks to disable the endpoint (records are held)."},
      {c::head_of_line_moves, "head_of_line_moves", "courier_head_of_line_moves_total",
       "Records moved to a retry tier by the head-of-line bound."},
      {c::answered_none, "", "courier_delivery_answers_total",
       "HTTP attempts by the class of their answer's status; none: no answer (a transport "
       "error: timeout, connect, tls, ...).",
       "class", "none"},
      {c::answered_1xx, "", "courier_delivery_answers_total", {}, "class", "1xx"},
      {c::answered_2xx, "", "courier_delivery_answers_total", {}, "class", "2xx"},
      {c::answered_3xx, "", "courier_delivery_answers_total", {}, "class", "3xx"},
      {c::answered_4xx, "", "courier_delivery_answers_total", {}, "class", "4xx"},
      {c::answered_5xx, "", "courier_delivery_answers_total", {}, "class", "5xx"},
      {c::rate_limited, "rate_limited", "courier_rate_limited_total",
       "Attempts that waited for a token of the route's rate limit (routes[].rate_limit)."},
      {c::rate_limited_us,
       "rate_limited_seconds",
       "courier_rate_limited_seconds_total",
       "Time attempts spent waiting for the route's rate limit, in all.",
       {},
       {},
       1e-6},
      {c::retry_budget_refused, "retry_budget_refused", "courier_retry_budget_refused_total",
       "Retries refused by the route's retry budget: the record moved on to its retry tier."},
      {c::credential_refreshes, "credential_refreshes", "courier_credential_refreshes_total",
       "Fresh credentials asked for after the partner answered 401."},
  }};
};
static_assert(metrics::counters_are_in_order<delivery_counter>());

using delivery_counts = metrics::counter_array<delivery_counter, std::uint64_t>;

// The answered_* counter of an HTTP status (0, or outside 100..599: answered_none).
constexpr delivery_counter answer_class_counter(int status) {
  const int k = status >= 100 && status < 600 ? status / 100 : 0;
  return static_cast<delivery_counter>(static_cast<int>(delivery_counter::answered_none) + k);
}

}  // namespace courier
