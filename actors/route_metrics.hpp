#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "actors/partition_board.hpp"
#include "core/metrics/exposition.hpp"

namespace courier::actors {

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

  std::atomic<std::uint64_t> fetched{0};
  std::atomic<std::uint64_t> rewound_duplicates{0};  // fetched again after a rewind: dropped
  std::atomic<std::uint64_t> delivered{0};
  std::atomic<std::uint64_t> attempts{0};
  std::atomic<std::uint64_t> retries{0};
  std::atomic<std::uint64_t> exhausted{0};           // attempt sequences that ran out
  std::atomic<std::uint64_t> permanent{0};           // permanent rejections by the receiver
  std::atomic<std::uint64_t> endpoint_failures{0};   // answers that hold their record
  std::atomic<std::uint64_t> ssrf_blocked{0};        // attempts refused by the SSRF guard
  std::atomic<std::uint64_t> gone{0};                // 410 Gone answers (records held)
  std::atomic<std::uint64_t> head_of_line_moves{0};  // moved on by the head-of-line bound
  std::atomic<std::uint64_t> retried_to_tier{0};     // acknowledged in a retry tier
  std::atomic<std::uint64_t> dead_lettered{0};       // acknowledged in the DLQ
  std::atomic<std::uint64_t> breaker_trips{0};
  // Every breaker transition by the state it went to: closed, open, half_open.
  std::atomic<std::uint64_t> breaker_to_closed{0};
  std::atomic<std::uint64_t> breaker_to_open{0};
  std::atomic<std::uint64_t> breaker_to_half_open{0};
  std::atomic<std::uint64_t> commit_failures{0};  // offset commits the broker refused
  // Statistics intervals in which the route starved for records its partitions held
  // (core/flow/fetch_starvation.hpp).
  std::atomic<std::uint64_t> fetch_starved{0};
  // HTTP answers by status class: [0] none (a transport error), [1]..[5] 1xx..5xx.
  std::array<std::atomic<std::uint64_t>, 6> answers_by_class{};
  std::atomic<std::uint64_t> pauses{0};
  std::atomic<std::uint64_t> resumes{0};
  std::atomic<std::uint64_t> backpressure_pauses{0};  // a partition paused at its own bound
  std::atomic<int> breaker_state{0};                  // courier::breaker_state as int
  std::atomic<std::int64_t> breaker_since_ms{0};      // Unix ms of its last change; 0: none
  std::atomic<std::int64_t> in_flight{0};
  std::atomic<int> concurrency_limit{0};  // the adaptive limit of attempts in flight; 0: off
  std::atomic<std::int64_t> paused_partitions{0};
  // Readiness (/readyz): the consumer got its first assignment (an empty one counts), and it
  // started draining (it never stops once begun).
  std::atomic<bool> assigned{false};
  std::atomic<bool> draining{false};
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
