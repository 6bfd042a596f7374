#pragma once

#include <cstdint>
#include <string>
#include <tuple>

namespace courier {

// One partition of one topic.
struct partition_id {
  std::string topic;
  std::int32_t partition = 0;

  friend bool operator==(const partition_id& a, const partition_id& b) {
    return a.partition == b.partition && a.topic == b.topic;
  }
  friend bool operator!=(const partition_id& a, const partition_id& b) { return !(a == b); }
  friend bool operator<(const partition_id& a, const partition_id& b) {
    return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
  }
};

}  // namespace courier
