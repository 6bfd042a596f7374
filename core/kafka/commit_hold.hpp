#pragma once

#include "core/model/offset_commit.hpp"
#include "core/model/partition_id.hpp"

#include <map>
#include <optional>
#include <string_view>
#include <vector>

namespace courier::kafka {

// Commits held while this member's JoinGroup is in flight (librdkafka 2.0.2, issue #4059 there,
// fixed in 2.8.3): the coordinator answers requests of one connection in order, so a commit
// sent behind a JoinGroup is read once the new generation exists and is refused with
// ILLEGAL_GENERATION, and librdkafka then declares the whole assignment lost (under
// cooperative-sticky, every join or leave of another member). Held commits go out once the
// member has its new generation, the newest offset of each partition only.

// The join state librdkafka's group debug line names ("Group \"g\" changed join state
// wait-join -> wait-metadata (state up)"), or nothing for any other line.
std::optional<std::string_view> join_state_entered(std::string_view line);

// Whether a member in this join state has a JoinGroup or SyncGroup in flight: its commits would
// carry the generation that is about to end.
bool join_in_flight(std::string_view join_state);

// The newest commit of each partition, held until the member can send it.
class commit_hold {
 public:
  void hold(const std::vector<offset_commit>& offsets);
  // `offsets` with what is held for other partitions (the held ones are newer only if `offsets`
  // does not name the partition); nothing is held afterwards.
  std::vector<offset_commit> release_with(const std::vector<offset_commit>& offsets);
  // Given up (revoked or lost): what was held for them is not committed by this member.
  void forget(const std::vector<partition_id>& ps);
  [[nodiscard]] bool empty() const { return held_.empty(); }

 private:
  std::map<partition_id, offset_commit> held_;
};

}  // namespace courier::kafka
