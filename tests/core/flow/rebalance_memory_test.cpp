#include "core/flow/rebalance_memory.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include "tests/core/flow/consumer_core_fakes.hpp"

// What the consumer core remembers of the partitions it had: what it finished since its last
// commit, taken as done when it gets a partition back that nobody committed meanwhile, and the
// outcomes of records handed out before a revoke.
namespace courier {
namespace {

using testing::p0;

rebalance_memory::former_partition former(std::int64_t commit_point,
                                          std::map<std::int64_t, std::int64_t> done_runs,
                                          std::set<std::int64_t> handed_out) {
  rebalance_memory::former_partition f;
  f.commit_point = commit_point;
  for (const auto& [begin, end] : done_runs) {
    f.done.add(begin, end);
  }
  f.handed_out = std::move(handed_out);
  return f;
}

TEST(RebalanceMemory, BackWithTheCommitItLastSawWhatItFinishedSinceIsDone) {
  rebalance_memory m;
  EXPECT_TRUE(m.assigned(p0, 10, {}).empty());
  m.revoked(p0, former(15, {{17, 19}}, {}));
  const auto seed = m.assigned(p0, 10, {});
  EXPECT_EQ(seed.runs(), (std::map<std::int64_t, std::int64_t>{{10, 15}, {17, 19}}));
}

TEST(RebalanceMemory, BackWithAnotherCommitTheBrokersMapIsTheOne) {
  rebalance_memory m;
  (void)m.assigned(p0, 10, {});
  m.revoked(p0, former(15, {{17, 19}}, {}));
  done_offsets from_map;
  from_map.add(21, 22);
  EXPECT_EQ(m.assigned(p0, 20, from_map).runs(), from_map.runs()) << "someone else owned it";
}

TEST(RebalanceMemory, ItsOwnCommitIsTheOneItLastSaw) {
  rebalance_memory m;
  (void)m.assigned(p0, 10, {});
  m.committed(p0, 12);
  m.revoked(p0, former(15, {}, {}));
  EXPECT_EQ(m.assigned(p0, 12, {}).runs(), (std::map<std::int64_t, std::int64_t>{{12, 15}}));
}

TEST(RebalanceMemory, AnOutcomeOfARecordHandedOutBeforeTheRevokeIsRememberedAndNothingElse) {
  rebalance_memory m;
  (void)m.assigned(p0, 10, {});
  m.revoked(p0, former(10, {}, {10, 11}));
  EXPECT_TRUE(m.finished_before_revoke(p0, 10));
  EXPECT_FALSE(m.finished_before_revoke(p0, 10)) << "once";
  EXPECT_FALSE(m.finished_before_revoke(p0, 12)) << "never handed out";
  EXPECT_EQ(m.assigned(p0, 10, {}).runs(), (std::map<std::int64_t, std::int64_t>{{10, 11}}));
}

TEST(RebalanceMemory, AssignedAgainItsOldCopysOutcomeIsTakenFirst) {
  rebalance_memory m;
  (void)m.assigned(p0, 10, {});
  m.revoked(p0, former(10, {}, {10}));
  (void)m.assigned(p0, 10, {});
  EXPECT_TRUE(m.finished_before_revoke(p0, 10)) << "the first outcome is the old copy's";
  EXPECT_FALSE(m.finished_before_revoke(p0, 10)) << "the second is the new copy's";
}

}  // namespace
}  // namespace courier
