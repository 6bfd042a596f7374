#include "core/kafka/commit_hold.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace courier::kafka {
namespace {

offset_commit at(const char* topic, std::int32_t partition, std::int64_t offset,
                 const char* metadata = "") {
  return offset_commit{partition_id{topic, partition}, offset, metadata};
}

TEST(JoinState, IsReadFromLibrdkafkasGroupDebugLine) {
  EXPECT_EQ(join_state_entered(R"(Group "g" changed join state steady -> wait-join (state up))"),
            "wait-join");
  EXPECT_EQ(join_state_entered(R"(Group "g" changed join state wait-sync -> wait-assign-call)"),
            "wait-assign-call");
  EXPECT_FALSE(join_state_entered(R"(Group "g" changed state up -> term)"));
  EXPECT_FALSE(join_state_entered("changed join state steady -> "));
}

TEST(JoinState, OnlyAJoinOrSyncInFlightHoldsCommits) {
  for (const char* s : {"wait-join", "wait-metadata", "wait-sync"}) {
    EXPECT_TRUE(join_in_flight(s)) << s;
  }
  for (const char* s : {"init", "steady", "wait-assign-call", "wait-unassign-call",
                        "wait-unassign-to-complete", "wait-incr-unassign-to-complete"}) {
    EXPECT_FALSE(join_in_flight(s)) << s;
  }
}

TEST(CommitHold, ReleasesTheNewestOfEachPartitionOnceWithTheNextCommit) {
  commit_hold hold;
  hold.hold({at("t", 0, 10, "a"), at("t", 1, 5)});
  hold.hold({at("t", 0, 12, "b")});
  EXPECT_FALSE(hold.empty());
  auto out = hold.release_with({at("t", 2, 7)});
  std::sort(out.begin(), out.end(),
            [](const auto& l, const auto& r) { return l.partition < r.partition; });
  ASSERT_EQ(out.size(), 3U);
  EXPECT_EQ(out[0].offset, 12);
  EXPECT_EQ(out[0].metadata, "b");
  EXPECT_EQ(out[1].offset, 5);
  EXPECT_EQ(out[2].offset, 7);
  EXPECT_TRUE(hold.empty());
  EXPECT_TRUE(hold.release_with({}).empty());
}

TEST(CommitHold, ACommitNamingAHeldPartitionReplacesWhatWasHeld) {
  commit_hold hold;
  hold.hold({at("t", 0, 10)});
  const auto out = hold.release_with({at("t", 0, 9)});  // a revoke's own commit point wins
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].offset, 9);
}

TEST(CommitHold, APartitionGivenUpIsNotCommittedByThisMember) {
  commit_hold hold;
  hold.hold({at("t", 0, 10), at("t", 1, 5)});
  hold.forget({partition_id{"t", 0}});
  const auto out = hold.release_with({});
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].partition, (partition_id{"t", 1}));
}

}  // namespace
}  // namespace courier::kafka
