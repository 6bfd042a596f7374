#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/kafka/cluster.hpp"
#include "core/kafka/handles.hpp"
#include "core/model/record.hpp"

namespace courier::kafka {

struct partition_range {
  std::int32_t partition = 0;
  std::int64_t low = 0;   // first offset still in the log
  std::int64_t high = 0;  // the high watermark when the read started
};

// Reads ranges of a topic's partitions (from the first offset still in the log, or from where the
// caller says) to the high watermark each had when the read started, with
// isolation.level=read_committed: redrive's view of the DLQ and its ledger, and an ordered
// route's view of its retry tiers at a takeover. Partitions are assigned, never subscribed, and no
// offset is ever committed: reading has no side effect on the cluster.
class range_reader {
 public:
  // `stall_timeout` bounds every wait: metadata, watermarks, and the gap between records.
  range_reader(const cluster& at, std::chrono::milliseconds stall_timeout);
  range_reader(const range_reader&) = delete;
  range_reader& operator=(const range_reader&) = delete;
  range_reader(range_reader&&) = delete;
  range_reader& operator=(range_reader&&) = delete;
  ~range_reader();

  // How many partitions `topic` has; throws kafka_error (UNKNOWN_TOPIC_OR_PART when the
  // cluster has no such topic, a transport or timeout error when it cannot be reached).
  int partition_count(const std::string& topic);

  // Each partition's range from the first offset still in the log to the high watermark.
  std::vector<partition_range> ranges(const std::string& topic, int partitions);
  partition_range range_of(const std::string& topic, std::int32_t partition);

  // The first offset of `partition` whose record's timestamp is at or after `epoch_ms`; the high
  // watermark when there is none (every record is older).
  std::int64_t offset_at_time(const std::string& topic, std::int32_t partition,
                              std::int64_t epoch_ms);

  // Calls `on_record` for every record in the ranges (per partition in offset order) until
  // it returns false. Throws kafka_error when the read stalls for longer than the timeout.
  void read(const std::string& topic, const std::vector<partition_range>& ranges,
            const std::function<bool(record&&)>& on_record);

  // The record at exactly these coordinates, if the log still holds it.
  std::optional<record> read_one(const std::string& topic, std::int32_t partition,
                                 std::int64_t offset);

 private:
  std::chrono::milliseconds timeout_;
  handle_ptr rk_;
};

}  // namespace courier::kafka
