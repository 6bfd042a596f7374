#pragma once

#include <atomic>
#include <cstdint>

namespace courier::actors {

// Counters of the retry router (one for every route), written by it and read by /metrics.
struct router_metrics {
  std::atomic<std::uint64_t> produced{0};           // tier and DLQ records acknowledged
  std::atomic<std::uint64_t> produce_failures{0};   // failed tries (each is produced again)
  std::atomic<std::int64_t> records_failing{0};     // records whose latest try failed
  std::atomic<std::uint64_t> producer_rebuilds{0};  // after a fatal idempotent-producer error
};

}  // namespace courier::actors
