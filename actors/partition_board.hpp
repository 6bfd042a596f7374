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
struct partition_report {
  std::string topic;
  std::int32_t partition = 0;
  bool assigned = false;
  std::vector<std::string> paused_reasons;  // empty: fetching
  std::optional<std::int64_t> paused_since_ms;
  std::size_t in_flight = 0;
  std::size_t held_until_due = 0;  // of in_flight: waiting in the due gate
  partition_accounting accounting;
  // ordering "key", a source partition: keys parked behind a record in a tier, records held
  // behind an earlier one of their key, and since when the oldest parked key waits.
  bool ordered = false;
  std::size_t parked_keys = 0;
  std::size_t followers = 0;
  std::optional<std::int64_t> oldest_parked_since_ms;
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
      r.topic = s.id.topic;
      r.partition = s.id.partition;
      r.assigned = s.assigned;
      for (const auto reason : s.reasons) {
        r.paused_reasons.push_back(to_string(reason));
      }
      r.paused_since_ms = s.paused_since_ms;
      r.in_flight = s.in_flight;
      r.held_until_due = s.held_until_due;
      r.accounting = s.accounting;
      r.ordered = s.ordered;
      r.parked_keys = s.parked_keys;
      r.followers = s.followers;
      r.oldest_parked_since_ms = s.oldest_parked_since_ms;
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
