#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "actors/partition_board.hpp"
#include "actors/route_counters.hpp"
#include "actors/route_gauges.hpp"
#include "core/delivery/delivery_counters.hpp"
#include "core/flow/consumer_counters.hpp"
#include "core/metrics/exposition.hpp"

namespace courier::actors {

// The steady clock in milliseconds, for times the admin plane compares with its own now (the
// consumer's last poll): real time also under the tests' virtual actor clocks.
inline std::int64_t steady_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::steady_clock::now().time_since_epoch())
    .count();
}

// Counters and gauges of one route, written by its actors and read by the demo, the benchmark
// and the admin listener (/metrics, /readyz, /state). Plain atomics: readers never block an actor.
struct route_metrics {
  // Buckets up to the route's HTTP timeout: no attempt takes longer.
  explicit route_metrics(double http_timeout_seconds = 5.0)
      : request_seconds(metrics::latency_buckets(http_timeout_seconds)),
        delivery_seconds(metrics::latency_buckets(record_age_ceiling_seconds)),
        fetch_seconds(metrics::latency_buckets(record_age_ceiling_seconds)) {}

  // Buckets of delivery_seconds: from 5 ms up to an hour (retry tiers take minutes).
  static constexpr double record_age_ceiling_seconds = 3600.0;

  // Every HTTP attempt, from the request handed to the client to its answer (or error),
  // observed on the HTTP client's thread.
  metrics::histogram request_seconds;
  // Every delivered record, from its Kafka timestamp to the receiver's 2xx (retry tiers
  // included), observed by the delivery pool.
  metrics::histogram delivery_seconds;
  // Every record taken from the route's source topics (not its retry tiers), from its Kafka
  // timestamp to courier's poll: the producer, the broker, the fetch and the wait in
  // librdkafka's prefetch queue. Beside delivery_seconds it tells a tail before courier from
  // one inside it. Observed by the consumer.
  metrics::histogram fetch_seconds;

  // The counters, one table each (a counter is one enumerator and one row of its table):
  // the attempt policy's, the consumer core's and those the route's actors keep themselves.
  metrics::counter_array<delivery_counter, std::atomic<std::uint64_t>> deliveries;
  metrics::counter_array<consumer_counter, std::atomic<std::uint64_t>> consumer;
  metrics::counter_array<route_counter, std::atomic<std::uint64_t>> actors;
  std::atomic<int> breaker_state{0};              // courier::breaker_state as int
  std::atomic<std::int64_t> breaker_since_ms{0};  // Unix ms of its last change; 0: none
  // The counts of something now, one table (actors/route_gauges.hpp): a gauge is one
  // enumerator and one row.
  metrics::gauge_array<route_gauge, std::atomic<std::int64_t>> gauges;
  // routes[].rate_limit: this instance's share of the quota in requests a second (0: no limit).
  std::atomic<double> rate_limit{0};
  // Readiness (/readyz): the consumer got its first assignment (an empty one counts), and it
  // started draining (it never stops once begun).
  std::atomic<bool> assigned{false};
  std::atomic<bool> draining{false};
  // Liveness (/healthz): when the consumer last polled (steady_now_ms(); 0: not yet).
  std::atomic<std::int64_t> last_poll_steady_ms{0};
  // An operator paused the route (POST /routes/<name>/pause) and did not resume it: set by the
  // consumer when pause_reason::operator_request turns on or off route-wide.
  std::atomic<bool> operator_paused{false};
  // The consumer's broker connection as librdkafka last reported it (all brokers down; each
  // statistics report); reachable until told otherwise.
  std::atomic<bool> broker_reachable{true};
  // Per partition: pause reasons, accounting, commit point, high watermark, lag.
  partition_board partitions;
  // The route is flagged: the SSRF guard refused its endpoint at the latest attempt.
  std::atomic<bool> endpoint_blocked{false};
  // The route is flagged: the receiver answered 410 Gone and no 2xx came since.
  std::atomic<bool> endpoint_gone{false};
};

}  // namespace courier::actors
