#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/model/partition_id.hpp"

namespace courier {

// A partition given to this consumer, with what its group committed for it: the offset the
// fetch starts at and the metadata committed beside it (courier's offset map, another client's
// text, or nothing).
struct assigned_partition {
  partition_id partition;
  std::optional<std::int64_t> committed;  // nullopt: nothing committed (auto.offset.reset)
  std::string metadata;
};

// One partition's commit: the next offset to read, and the metadata to keep beside it.
struct offset_commit {
  partition_id partition;
  std::int64_t offset = 0;
  std::string metadata;
};

// What the broker said about one partition's commit.
struct commit_outcome {
  partition_id partition;
  std::int64_t offset = 0;
  std::string error;              // empty: committed
  bool metadata_dropped = false;  // committed without its metadata: the broker refused its size
  // Refused because the group has a newer generation than this member's (a rebalance went on
  // while it committed): the partition's next owner starts from its last commit.
  bool superseded = false;
};

}  // namespace courier
