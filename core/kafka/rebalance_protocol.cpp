#include "core/kafka/rebalance_protocol.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

namespace courier::kafka {
namespace {

// Runs `step`; what it throws is kept (the first of the rebalance) or reported as dropped.
template <class Step>
void guarded(rebalance_backend& member, Step&& step) {
  try {
    step();
  } catch (...) {
    if (!member.keep_first(std::current_exception())) {
      member.report("a further error during the same rebalance was dropped in favour of the first");
    }
  }
}

}  // namespace

void rebalance_protocol::assign(const std::vector<partition_id>& ps, rebalance_backend& member) {
  std::vector<assigned_partition> given;
  guarded(member, [&] {
    // Closing, the group's OffsetFetch is not answered (it waits out committed_fetch_bound),
    // and nothing is fetched any more: the partitions are given up again at once. (And a
    // cooperative rebalance's empty assignment has nothing to ask about.)
    given = member.read_assignment(/*ask_committed=*/!member.closing() && !ps.empty());
    member.take_up();
  });
  if (given.size() == ps.size()) {
    guarded(member, [&] { member.owner_assigned(given); });
  }
  guarded(member, [&] { complete_revoke(member); });  // one the owner kept and did not complete
}

void rebalance_protocol::revoke(const std::vector<partition_id>& ps, rebalance_backend& member) {
  const bool lost = member.assignment_lost();
  if (lost) {
    member.forget_held_commits(ps);  // another member may have them already
  }
  auto timing = revoke_timing::now;
  guarded(member, [&] { timing = member.owner_revoked(ps, lost); });
  guarded(member, [&] { complete_revoke(member); });  // an earlier one the owner did not complete
  revoking_ = ps;
  // Closing, the group does not wait: the owner committed before close().
  if (timing == revoke_timing::now || member.closing()) {
    guarded(member, [&] { complete_revoke(member); });
  }
}

void rebalance_protocol::fail(const std::string& reason, rebalance_backend& member) {
  member.report("rebalance failed: " + reason + "; dropping the assignment");
  guarded(member, [&] { member.drop_assignment(); });
}

void rebalance_protocol::complete_revoke(rebalance_backend& member) {
  if (!revoking_) {
    return;
  }
  std::vector<partition_id> still = std::move(*revoking_);
  revoking_.reset();
  // Only what is still assigned: a lost assignment may have taken some already. (Closing, the
  // group gives everything up, and rd_kafka_assignment answers _DESTROY under cooperative-sticky.)
  if (!member.closing()) {
    const auto held = member.held();
    const std::set<partition_id> assigned{held.begin(), held.end()};
    still.erase(std::remove_if(still.begin(), still.end(),
                               [&](const partition_id& p) { return assigned.count(p) == 0; }),
                still.end());
  }
  if (still.empty()) {
    return;
  }
  // The pause flag would survive into the next assignment (librdkafka 2.0.2): clear it here,
  // so every assignment starts fetching and the owner re-applies its pause state.
  member.clear_pause(still);
  member.give_up(still);
  member.forget_held_commits(still);  // the owner committed them on revoke
}

bool is_cooperative(const char* protocol) {
  return protocol != nullptr && std::strcmp(protocol, "COOPERATIVE") == 0;
}

}  // namespace courier::kafka
