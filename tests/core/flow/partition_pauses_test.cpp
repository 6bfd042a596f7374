#include "core/flow/partition_pauses.hpp"

#include <gtest/gtest.h>

namespace courier {
namespace {

using ids = std::vector<partition_id>;

const partition_id p0{"brew.shipments.v1", 0};
const partition_id p1{"brew.shipments.v1", 1};

TEST(PartitionPauses, PausesAPartitionOnItsFirstReasonAndResumesItOnItsLast) {
  partition_pauses pp;
  pp.assign(p0);
  auto c = pp.set(p0, pause_reason::backpressure, true);
  EXPECT_EQ(c.pause, ids{p0});
  c = pp.set(p0, pause_reason::breaker, true);
  EXPECT_TRUE(c.pause.empty()) << "already paused";
  c = pp.set(p0, pause_reason::backpressure, false);
  EXPECT_TRUE(c.resume.empty()) << "the breaker still holds it";
  EXPECT_TRUE(pp.is_paused(p0));
  c = pp.set(p0, pause_reason::breaker, false);
  EXPECT_EQ(c.resume, ids{p0});
  EXPECT_FALSE(pp.is_paused(p0));
}

TEST(PartitionPauses, NeverResumesAPartitionThatIsNotPaused) {
  partition_pauses pp;
  pp.assign(p0);
  const auto c = pp.set(p0, pause_reason::retry_due, false);
  EXPECT_TRUE(c.resume.empty());
  EXPECT_TRUE(c.touched.empty());
}

TEST(PartitionPauses, ARouteWideReasonReachesEveryPartitionAndLaterAssignments) {
  partition_pauses pp;
  pp.assign(p0);
  auto c = pp.set_everywhere(pause_reason::breaker, true);
  EXPECT_EQ(c.pause, ids{p0});
  EXPECT_EQ(c.touched, ids{p0});
  c = pp.assign(p1);
  EXPECT_EQ(c.pause, ids{p1}) << "a partition assigned while the breaker is open starts paused";
  c = pp.set_everywhere(pause_reason::breaker, false);
  EXPECT_EQ(c.resume, (ids{p0, p1}));
  EXPECT_EQ(pp.paused_count(), 0U);
}

TEST(PartitionPauses, AnOperatorsPauseHoldsLaterAssignmentsAndItsResumeLeavesOtherReasons) {
  partition_pauses pp;
  pp.assign(p0);
  pp.set(p0, pause_reason::backpressure, true);
  auto c = pp.set_everywhere(pause_reason::operator_request, true);
  EXPECT_EQ(c.touched, ids{p0});
  EXPECT_TRUE(c.pause.empty()) << "backpressure had paused it already";
  c = pp.assign(p1);
  EXPECT_EQ(c.pause, ids{p1})
      << "a partition assigned while the operator's pause holds starts paused";
  EXPECT_EQ(pp.reasons(p1), std::vector<pause_reason>{pause_reason::operator_request});
  pp.set_everywhere(pause_reason::breaker, true);
  c = pp.set_everywhere(pause_reason::operator_request, false);
  EXPECT_EQ(c.touched, (ids{p0, p1}));
  EXPECT_TRUE(c.resume.empty()) << "the breaker still holds both";
  EXPECT_EQ(pp.reasons(p0),
            (std::vector<pause_reason>{pause_reason::breaker, pause_reason::backpressure}));
  EXPECT_EQ(pp.reasons(p1), std::vector<pause_reason>{pause_reason::breaker});
  c = pp.set_everywhere(pause_reason::breaker, false);
  EXPECT_EQ(c.resume, ids{p1}) << "p0 waits for room; p1 fetches";
  EXPECT_TRUE(pp.assign(partition_id{"brew.shipments.v1", 2}).pause.empty())
      << "after the resume a new assignment fetches at once";
}

TEST(PartitionPauses, TouchedListsPartitionsWhoseReasonsChangedEvenIfStillPaused) {
  partition_pauses pp;
  pp.assign(p0);
  pp.assign(p1);
  pp.set(p0, pause_reason::backpressure, true);
  const auto c = pp.set_everywhere(pause_reason::breaker, true);
  EXPECT_EQ(c.touched, (ids{p0, p1}));
  EXPECT_EQ(c.pause, ids{p1});
}

TEST(PartitionPauses, ARevokedPartitionIsForgottenAndIgnored) {
  partition_pauses pp;
  pp.assign(p0);
  pp.set(p0, pause_reason::retry_due, true);
  pp.revoke(p0);
  EXPECT_FALSE(pp.is_paused(p0));
  const auto c = pp.set(p0, pause_reason::retry_due, false);
  EXPECT_TRUE(c.resume.empty());
  EXPECT_EQ(pp.paused_count(), 0U);
  // Assigned again: it starts from the route-wide reasons only.
  EXPECT_TRUE(pp.assign(p0).pause.empty());
}

}  // namespace
}  // namespace courier
