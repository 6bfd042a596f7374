#pragma once

#include "core/kafka/group_consumer.hpp"
#include "core/model/offset_commit.hpp"
#include "core/model/partition_id.hpp"

#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace courier::kafka {

// What the rebalance protocol asks of the group member it runs in, and has it carry out: the
// librdkafka consumer (consumer.cpp), or a test's fake. Any call may throw.
class rebalance_backend {
 public:
  virtual ~rebalance_backend() = default;

  // -- the member's state ---

  // The member is leaving the group (close()): nothing is fetched any more, the group does not
  // wait for a revoke, and everything it held is given up.
  [[nodiscard]] virtual bool closing() const = 0;
  // The revoke under way is of partitions the session lost: another member may have them.
  [[nodiscard]] virtual bool assignment_lost() const = 0;
  // The partitions the member holds now.
  [[nodiscard]] virtual std::vector<partition_id> held() const = 0;

  // -- carrying out ---

  // The partitions being assigned, with the group's committed offsets and metadata when
  // `ask_committed` (read before the fetch starts at them), else without them.
  virtual std::vector<assigned_partition> read_assignment(bool ask_committed) = 0;
  // Starts fetching the partitions being assigned, from the offsets read_assignment read.
  virtual void take_up() = 0;
  // Stops fetching `ps` (incrementally under the cooperative protocol).
  virtual void give_up(const std::vector<partition_id>& ps) = 0;
  // Drops the whole assignment.
  virtual void drop_assignment() = 0;
  // Resumes those of `ps` that are paused: a pause would outlive the assignment.
  virtual void clear_pause(const std::vector<partition_id>& ps) = 0;
  // Forgets the commits held for `ps` while the member joined (commit_hold).
  virtual void forget_held_commits(const std::vector<partition_id>& ps) = 0;
  virtual void report(const std::string& message) = 0;
  // Keeps `e` to be rethrown once the rebalance is over; false when one is kept already (then
  // `e` is dropped).
  virtual bool keep_first(std::exception_ptr e) = 0;

  // -- the owner's callbacks (kafka::consumer::callbacks) ---

  virtual void owner_assigned(const std::vector<assigned_partition>& given) = 0;
  virtual revoke_timing owner_revoked(const std::vector<partition_id>& ps, bool lost) = 0;
};

// The rebalance callback's protocol, for the eager and the cooperative protocol alike (the
// backend's assign and unassign calls differ, not the decisions). It decides; the member carries
// out. An exception must not cross librdkafka's C frames, so each step of a rebalance is
// guarded: the first exception is kept for the member to rethrow, the rebalance completes.
//
// A revoke the owner keeps (on_revoked answered `later`) is completed by the owner, through
// complete_revoke, or by the protocol at the next rebalance or when the member closes.
class rebalance_protocol {
 public:
  // -- librdkafka's rebalance events ---

  // Partitions assigned: their committed offsets read (not when closing, or for an empty
  // cooperative assignment), the fetch started, the owner told, a kept revoke completed.
  void assign(const std::vector<partition_id>& ps, rebalance_backend& member);
  // Partitions revoked: a lost assignment's held commits forgotten, the owner asked, an earlier
  // kept revoke completed, and this one kept, or completed at once when the owner answered `now`
  // or the member is closing.
  void revoke(const std::vector<partition_id>& ps, rebalance_backend& member);
  // The rebalance failed (`reason`: librdkafka's): reported, and the assignment dropped.
  void fail(const std::string& reason, rebalance_backend& member);

  // -- the owner ---

  // Gives up the partitions of the kept revoke that the member still holds (all of them when
  // closing: the group gives everything up). Throws what the member throws.
  void complete_revoke(rebalance_backend& member);

  // Whether a revoke is kept, waiting for complete_revoke.
  [[nodiscard]] bool revoke_kept() const { return revoking_.has_value(); }

 private:
  std::optional<std::vector<partition_id>> revoking_;
};

// Whether the group rebalances incrementally, by librdkafka's name of its rebalance protocol
// (rd_kafka_rebalance_protocol). librdkafka answers no protocol at all (nullptr) while the
// member is not in a group, e.g. as it closes: then the eager calls apply.
[[nodiscard]] bool is_cooperative(const char* protocol);

}  // namespace courier::kafka
