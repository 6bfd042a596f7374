#include "core/flow/due_gate.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace courier {
namespace {

record at(std::int32_t partition, std::int64_t offset) {
  record r;
  r.topic = "brew.shipments.v1.retry-5s";
  r.partition = partition;
  r.offset = offset;
  return r;
}

TEST(DueGate, LetsADueRecordThroughAtOnce) {
  due_gate g;
  const auto out = g.admit(at(0, 1), /*due_ms=*/1000, /*now_ms=*/1000);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->offset, 1);
  EXPECT_EQ(g.size(), 0U);
}

TEST(DueGate, HoldsARecordUntilItsDueTime) {
  due_gate g;
  EXPECT_FALSE(g.admit(at(0, 1), 5000, 1000).has_value());
  EXPECT_TRUE(g.holds({"brew.shipments.v1.retry-5s", 0}));
  EXPECT_EQ(g.next_due({"brew.shipments.v1.retry-5s", 0}), 5000);
  EXPECT_TRUE(g.release({"brew.shipments.v1.retry-5s", 0}, 4999).empty());
  const auto out = g.release({"brew.shipments.v1.retry-5s", 0}, 5000);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].offset, 1);
  EXPECT_FALSE(g.holds({"brew.shipments.v1.retry-5s", 0}));
}

TEST(DueGate, KeepsLaterRecordsOfThePartitionBehindAWaitingOne) {
  due_gate g;
  EXPECT_FALSE(g.admit(at(0, 1), 5000, 1000).has_value());
  // Already due, but it must not overtake offset 1.
  EXPECT_FALSE(g.admit(at(0, 2), 900, 1000).has_value());
  const auto out = g.release({"brew.shipments.v1.retry-5s", 0}, 5000);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].offset, 1);
  EXPECT_EQ(out[1].offset, 2);
}

TEST(DueGate, ReleasesOnlyUpToTheFirstRecordNotYetDue) {
  due_gate g;
  g.admit(at(0, 1), 2000, 1000);
  g.admit(at(0, 2), 3000, 1000);
  g.admit(at(0, 3), 2500, 1000);
  const auto out = g.release({"brew.shipments.v1.retry-5s", 0}, 2600);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].offset, 1);
  EXPECT_EQ(g.next_due({"brew.shipments.v1.retry-5s", 0}), 3000);
  EXPECT_EQ(g.size(), 2U);
}

TEST(DueGate, PartitionsWaitIndependently) {
  due_gate g;
  g.admit(at(0, 1), 5000, 1000);
  const auto other = g.admit(at(1, 1), 1000, 1000);
  EXPECT_TRUE(other.has_value());
  EXPECT_FALSE(g.holds({"brew.shipments.v1.retry-5s", 1}));
}

TEST(DueGate, DropForgetsARevokedPartition) {
  due_gate g;
  g.admit(at(0, 1), 5000, 1000);
  g.admit(at(0, 2), 5000, 1000);
  g.admit(at(1, 1), 5000, 1000);
  g.drop({"brew.shipments.v1.retry-5s", 0});
  EXPECT_EQ(g.size(), 1U);
  EXPECT_FALSE(g.holds({"brew.shipments.v1.retry-5s", 0}));
  EXPECT_TRUE(g.admit(at(0, 3), 900, 1000).has_value());
}

TEST(DueGate, ReadsADueTimeAndTakesOneBeyondTheLongestDelayAndSkewAsDueNow) {
  auto r = at(0, 1);
  EXPECT_EQ(read_due(r, 1000, std::chrono::seconds{5}).due_ms, 0) << "no header: due now";
  r.headers = {{"courier.retry.due", "6000"}};
  const auto due = read_due(r, 1000, std::chrono::seconds{5});
  EXPECT_EQ(due.due_ms, 6000);
  EXPECT_FALSE(due.malformed);

  const auto too_far = std::to_string(1000 + 5000 + due_skew_allowance.count() + 1);
  r.headers = {{"courier.retry.due", too_far}};
  const auto far = read_due(r, 1000, std::chrono::seconds{5});
  EXPECT_EQ(far.due_ms, 0);
  ASSERT_TRUE(far.malformed);
  EXPECT_NE(far.malformed->find("after now (1000)"), std::string::npos) << *far.malformed;

  r.headers = {{"courier.retry.due", "soon"}};
  const auto broken = read_due(r, 1000, std::chrono::seconds{5});
  EXPECT_EQ(broken.due_ms, 0);
  EXPECT_TRUE(broken.malformed);
}

}  // namespace
}  // namespace courier
