#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace courier::kafka {

// One partition's position as librdkafka's statistics report it (statistics.interval.ms).
// -1 where librdkafka does not know yet (before the first fetch, before the first commit).
struct partition_position {
  std::string topic;
  std::int32_t partition = 0;
  std::int64_t committed = -1;       // committed_offset: the group's commit point
  std::int64_t high_watermark = -1;  // hi_offset: the broker's end of the partition
  std::int64_t lag = -1;             // consumer_lag: high watermark - committed offset
};

// The partitions this consumer fetches (librdkafka's `desired` flag), from the statistics JSON
// of a consumer handle. Throws std::invalid_argument when `json` is not statistics JSON.
std::vector<partition_position> parse_consumer_positions(std::string_view json);

// A paused partition's position: librdkafka learns a high watermark only from fetch responses,
// so a paused partition's stays where it was (or unknown), and with it the lag. The commit
// point of `reported` with the watermarks the broker answered: lag is high minus the commit
// point, or minus `low` while nothing is committed (auto.offset.reset=earliest starts there).
partition_position with_watermarks(partition_position reported, std::int64_t low,
                                   std::int64_t high);

// Whether the statistics show a broker connection up (any broker in state "UP"); nothing when
// they list no broker. Throws std::invalid_argument when `json` is not statistics JSON.
std::optional<bool> parse_broker_up(std::string_view json);

}  // namespace courier::kafka
