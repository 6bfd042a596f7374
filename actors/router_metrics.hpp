#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace courier::actors {

// Counters of the retry router (one for every route), written by it and read by /metrics.
struct router_metrics {
  std::atomic<std::uint64_t> produced{0};           // tier and DLQ records acknowledged
  std::atomic<std::uint64_t> produce_failures{0};   // failed tries (each is produced again)
  std::atomic<std::int64_t> records_failing{0};     // records whose latest try failed
  std::atomic<std::uint64_t> producer_rebuilds{0};  // after a fatal idempotent-producer error

  // Acknowledged records by destination topic (a tier or the DLQ) and courier.error.class. A
  // mutex: only records that failed come here, never a delivered one.
  using destination_class = std::pair<std::string, std::string>;
  void count_produced(std::string topic, std::string error_class) {
    std::lock_guard<std::mutex> lock{mutex_};
    ++produced_by_[{std::move(topic), std::move(error_class)}];
  }
  std::map<destination_class, std::uint64_t> produced_by() const {
    std::lock_guard<std::mutex> lock{mutex_};
    return produced_by_;
  }

 private:
  mutable std::mutex mutex_;
  std::map<destination_class, std::uint64_t> produced_by_;
};

}  // namespace courier::actors
