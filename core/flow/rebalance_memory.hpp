#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "core/flow/offset_map.hpp"
#include "core/model/partition_id.hpp"

namespace courier {

// What the consumer core remembers of the partitions it had, across rebalances: the last offset
// committed (or found committed at an assignment) of each and the commits it sent and never
// heard back of, and of each partition it no longer has, where it began fetching, the offsets it
// finished above the commit point of its last book and those still with the delivery pool.
// Assigned again with a committed offset that is its own (the one it last saw, one of its commits
// the broker took without an answer coming back, as in a broker outage; or none, when nothing was
// ever committed), nobody committed meanwhile, as after a lost assignment: what it finished is
// done, as if committed. Any other committed offset (another owner's, an operator's rewind) is
// taken as the broker has it. The outcomes of the records it handed out before the revoke count
// for nothing else, also once the same offsets are in flight anew (the first outcome of such an
// offset is taken for the old copy's).
class rebalance_memory {
 public:
  // A partition given up: its commit point then, the offsets done above it, and the offsets
  // still with the delivery pool.
  struct former_partition {
    std::optional<std::int64_t> commit_point;
    std::optional<std::int64_t> fetched_from;  // the first offset its book took
    done_offsets done;
    std::set<std::int64_t> handed_out;
  };
  void revoked(const partition_id& p, former_partition former);

  // The partition is assigned with `committed` (none: nothing committed) and `seed`, what its
  // offset map says is done: the seed with what this consumer finished since added, when the
  // committed offset is the one it last saw. From here on its records handed out before the
  // revoke are orphans.
  [[nodiscard]] done_offsets assigned(const partition_id& p, std::optional<std::int64_t> committed,
                                      done_offsets seed);

  // An outcome of a record handed out before a revoke (of a former partition, or an orphan of
  // one assigned again): it is remembered, and counts for nothing else.
  bool finished_before_revoke(const partition_id& p, std::int64_t offset);
  // Whether a copy of the record was handed out before a revoke and has not finished (its
  // outcome would be taken by finished_before_revoke): news of it may be the old copy's.
  [[nodiscard]] bool handed_out_before_revoke(const partition_id& p, std::int64_t offset) const;

  // A commit of the partition at `offset` was sent.
  void sent(const partition_id& p, std::int64_t offset);
  // The broker took a commit of the partition at `offset`.
  void committed(const partition_id& p, std::int64_t offset);

  // The unanswered commits remembered per partition (the lowest are forgotten beyond it).
  static constexpr std::size_t max_unanswered = 256;

 private:
  std::map<partition_id, former_partition> former_;
  // Per partition, the offsets handed out before a revoke whose outcomes are still to come,
  // once the partition is assigned again (a multiset: revoked twice while in flight twice).
  std::map<partition_id, std::multiset<std::int64_t>> orphans_;
  std::map<partition_id, std::int64_t> last_committed_;
  // Per partition, the offsets of commits sent above the last one taken: the broker may have
  // taken one whose answer never came.
  std::map<partition_id, std::set<std::int64_t>> unanswered_;
};

}  // namespace courier
