#pragma once

#include "core/kafka/handles.hpp"
#include "core/model/record.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>
#include "core/kafka/cluster.hpp"

namespace courier::redrive {

struct partition_range {
  std::int32_t partition = 0;
  std::int64_t low = 0;   // first offset still in the log
  std::int64_t high = 0;  // the high watermark when the read started
};

// Reads a topic from its first offset to the high watermark it had when the read started,
// with isolation.level=read_committed. Partitions are assigned, never subscribed, and no
// offset is ever committed: reading has no side effect on the cluster.
class dlq_reader {
 public:
  // `stall_timeout` bounds every wait: metadata, watermarks, and the gap between records.
  dlq_reader(const kafka::cluster& at, std::chrono::milliseconds stall_timeout);
  dlq_reader(const dlq_reader&) = delete;
  dlq_reader& operator=(const dlq_reader&) = delete;
  dlq_reader(dlq_reader&&) = delete;
  dlq_reader& operator=(dlq_reader&&) = delete;
  ~dlq_reader();

  // How many partitions `topic` has; throws kafka_error (UNKNOWN_TOPIC_OR_PART when the
  // cluster has no such topic, a transport or timeout error when it cannot be reached).
  int partition_count(const std::string& topic);

  std::vector<partition_range> ranges(const std::string& topic, int partitions);

  // Calls `on_record` for every record in the ranges (per partition in offset order) until
  // it returns false. Throws kafka_error when the read stalls for longer than the timeout.
  void read(const std::string& topic, const std::vector<partition_range>& ranges,
            const std::function<bool(record&&)>& on_record);

  // The record at exactly these coordinates, if the log still holds it.
  std::optional<record> read_one(const std::string& topic, std::int32_t partition,
                                 std::int64_t offset);

 private:
  std::chrono::milliseconds timeout_;
  kafka::handle_ptr rk_;
};

}  // namespace courier::redrive
