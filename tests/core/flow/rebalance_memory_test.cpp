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

// A broker outage: the commits sent meanwhile were never answered, and the broker may have
// taken one of them before it went away.
TEST(RebalanceMemory, ACommitItSentAndNeverHeardBackOfIsItsOwnToo) {
  rebalance_memory m;
  (void)m.assigned(p0, 10, {});
  m.sent(p0, 12);
  m.sent(p0, 14);
  m.revoked(p0, former(15, {{17, 19}}, {}));
  EXPECT_EQ(m.assigned(p0, 12, {}).runs(),
            (std::map<std::int64_t, std::int64_t>{{12, 15}, {17, 19}}))
      << "the broker took its commit at 12";

  m.sent(p0, 16);
  m.revoked(p0, former(20, {}, {}));
  EXPECT_TRUE(m.assigned(p0, 13, {}).empty()) << "13 it never sent: someone else's";

  m.sent(p0, 25);
  m.committed(p0, 25);
  m.revoked(p0, former(30, {}, {}));
  EXPECT_TRUE(m.assigned(p0, 16, {}).empty()) << "a commit after the one taken at 25: not its own";
}

// The partition was lost before any commit of it was taken: it is fetched again from where it
// was fetched first, and what was finished since is done.
TEST(RebalanceMemory, NeverCommittedItsFinishedRecordsFromWhereItBeganAreDone) {
  rebalance_memory m;
  EXPECT_TRUE(m.assigned(p0, std::nullopt, {}).empty());
  auto f = former(15, {{17, 19}}, {});
  f.fetched_from = 0;
  m.revoked(p0, f);
  EXPECT_EQ(m.assigned(p0, std::nullopt, {}).runs(),
            (std::map<std::int64_t, std::int64_t>{{0, 15}, {17, 19}}));

  m.committed(p0, 15);
  f.commit_point = 20;
  m.revoked(p0, f);
  EXPECT_TRUE(m.assigned(p0, std::nullopt, {}).empty())
      << "its commit at 15 is gone (deleted, expired): the reset point is an operator's";
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
