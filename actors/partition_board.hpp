#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/flow/consumer_core.hpp"
#include "core/kafka/consumer_stats.hpp"

namespace courier::actors {

// One partition of a route as /state and /metrics show it.
struct partition_report : consumer_core::partition_status {
  // From librdkafka's statistics (every statistics.interval.ms); -1: not known yet.
  std::int64_t committed = -1;
  std::int64_t high_watermark = -1;
  std::int64_t lag = -1;
};

// The route's partitions, written by its consumer (when a pause changes, when librdkafka's
// statistics arrive and at most once a second otherwise, never per record) and read by the
// admin listener. A mutex: both sides hold it only to copy a vector.
class partition_board {
 public:
  void publish(std::vector<consumer_core::partition_status> statuses) {
    std::lock_guard<std::mutex> lock{mutex_};
    statuses_ = std::move(statuses);
  }

  void publish(const std::vector<kafka::partition_position>& positions) {
    std::lock_guard<std::mutex> lock{mutex_};
    for (const auto& p : positions) {
      positions_[partition_id{p.topic, p.partition}] = p;
    }
  }

  std::vector<partition_report> snapshot() const {
    std::lock_guard<std::mutex> lock{mutex_};
    std::vector<partition_report> out;
    out.reserve(statuses_.size());
    for (const auto& s : statuses_) {
      partition_report r;
      static_cast<consumer_core::partition_status&>(r) = s;
      if (auto it = positions_.find(s.id); it != positions_.end() && s.assigned) {
        r.committed = it->second.committed;
        r.high_watermark = it->second.high_watermark;
        r.lag = it->second.lag;
      }
      out.push_back(std::move(r));
    }
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<consumer_core::partition_status> statuses_;
  std::map<partition_id, kafka::partition_position> positions_;
};

}  // namespace courier::actors
