#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
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

// Mixes one more field into a hash (boost::hash_combine's formula).
inline std::size_t hash_mix(std::size_t h, std::size_t field) {
  return h ^ (field + 0x9e3779b97f4a7c15ULL + (h << 6U) + (h >> 2U));
}

// For unordered containers keyed by partition: one hash of the topic, where a std::map compares
// it again at every level.
struct partition_id_hash {
  std::size_t operator()(const partition_id& p) const {
    return hash_mix(std::hash<std::string>{}(p.topic), std::hash<std::int32_t>{}(p.partition));
  }
};

}  // namespace courier
