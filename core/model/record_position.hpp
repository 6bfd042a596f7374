#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include "core/model/partition_id.hpp"

namespace courier {

// Where a record is: topic, partition, offset, as one value, so the three never travel as
// loose arguments that are easy to swap.
struct record_position {
  std::string topic;
  std::int32_t partition = 0;
  std::int64_t offset = 0;

  [[nodiscard]] partition_id partition_of() const { return {topic, partition}; }

  friend bool operator==(const record_position& a, const record_position& b) {
    return a.offset == b.offset && a.partition == b.partition && a.topic == b.topic;
  }
  friend bool operator!=(const record_position& a, const record_position& b) { return !(a == b); }
  friend bool operator<(const record_position& a, const record_position& b) {
    return std::tie(a.topic, a.partition, a.offset) < std::tie(b.topic, b.partition, b.offset);
  }
};

// "topic:partition:offset", as operators name a record (brew.shipments.v1:3:42).
inline std::string to_string(const record_position& p) {
  return p.topic + ":" + std::to_string(p.partition) + ":" + std::to_string(p.offset);
}

}  // namespace courier
