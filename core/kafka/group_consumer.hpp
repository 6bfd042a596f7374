#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/model/offset_commit.hpp"
#include "core/model/partition_id.hpp"
#include "core/model/record.hpp"

namespace courier::kafka {

enum class commit_mode : std::uint8_t {
  sync,   // the outcomes are reported before commit() returns
  async,  // the outcomes are reported from a later poll()
  // As sync, for a member about to leave: sent at once, also while the member's join is in
  // flight. Waiting for the join there could wait for ever: the group's next generation needs
  // every member's JoinGroup, and a split consumer's other member can only send its own once
  // the caller polls again (split_consumer polls its members for a bounded while first, so that
  // the join can finish: settle_joins). Refused for a newer generation, the partitions are their
  // next owner's from the last commit, which at-least-once allows.
  leaving,
};

// Whether the owner gave up revoked partitions inside on_revoked, or keeps them for a while (to
// let their records in flight finish) and calls complete_revoke() later.
enum class revoke_timing : std::uint8_t { now, later };

// A member of a consumer group as the consumer actor drives it: poll, commit offsets with their
// metadata, pause and resume fetching, leave. kafka::consumer (librdkafka) is the real one, and
// its comments say what each call promises; an actor test passes a fake that plays the group.
// The rebalance, commit and error callbacks come with the member when it is made
// (kafka::consumer::callbacks) and run inside poll(), commit() and close().
class group_consumer {
 public:
  virtual ~group_consumer() = default;

  virtual std::vector<record> poll(std::chrono::milliseconds timeout, std::size_t max_records) = 0;
  // Commits these offsets with their metadata; each partition's outcome goes to on_committed.
  virtual void commit(const std::vector<offset_commit>& offsets, commit_mode mode) = 0;
  // Gives up the partitions whose revoke on_revoked answered `later` for.
  virtual void complete_revoke() = 0;
  virtual void pause(const std::vector<partition_id>& ps) = 0;
  virtual void resume(const std::vector<partition_id>& ps) = 0;
  [[nodiscard]] virtual std::vector<partition_id> assignment() const = 0;
  virtual void close() = 0;
};

}  // namespace courier::kafka
