#include "core/flow/partition_book.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <set>

#include "tests/core/flow/consumer_core_fakes.hpp"

// One partition's book: its offsets, its hold at its own bound, its head and its wake, its
// blocked records and what a revoke withholds.
namespace courier {
namespace {

using testing::p0;
using testing::rec;

partition_book_settings own_bound(std::size_t bound, std::size_t route_bound = 4) {
  partition_book_settings s;
  s.own_bound = bound;
  s.route_bound = route_bound;
  s.head_of_line_records = 0;
  return s;
}

// Tracks the offsets and hands each to the delivery pool at `now_ms`.
void send(partition_book& b, std::initializer_list<std::int64_t> offsets, std::int64_t now_ms) {
  for (const auto offset : offsets) {
    ASSERT_EQ(b.track(offset, 0), offset_tracker::track_result::tracked);
    b.dispatched(offset, now_ms);
  }
}

TEST(PartitionBook, TheOldestUndeliveredIsTheLowestRecordInFlightAndMovesWhenItFinishes) {
  partition_book b{own_bound(0), {}, 0};
  EXPECT_EQ(b.oldest_undelivered_timestamp_ms(), std::nullopt) << "nothing in flight";
  for (const std::int64_t offset : {0, 1, 2}) {
    ASSERT_EQ(b.track(offset, 1000 + offset), offset_tracker::track_result::tracked);
    b.dispatched(offset, 0);
  }
  EXPECT_EQ(b.oldest_undelivered_timestamp_ms(), std::optional<std::int64_t>{1000});
  ASSERT_TRUE(b.finish(1, 5));
  EXPECT_EQ(b.oldest_undelivered_timestamp_ms(), std::optional<std::int64_t>{1000})
      << "a later one finished: the oldest still waits";
  ASSERT_TRUE(b.finish(0, 6));
  EXPECT_EQ(b.oldest_undelivered_timestamp_ms(), std::optional<std::int64_t>{1002});
  ASSERT_TRUE(b.finish(2, 7));
  EXPECT_EQ(b.oldest_undelivered_timestamp_ms(), std::nullopt);
}

TEST(PartitionBook, AtItsOwnBoundItHoldsAndReleasesInOrderAsOutcomesComeBack) {
  partition_book b{own_bound(2), {}, 0};
  send(b, {0, 1}, 0);
  EXPECT_TRUE(b.at_own_bound());
  for (const std::int64_t offset : {2, 3}) {
    ASSERT_EQ(b.track(offset, 0), offset_tracker::track_result::tracked);
    ASSERT_TRUE(b.behind_hold());
    b.hold(rec(p0, offset));
  }
  EXPECT_FALSE(b.release_held()) << "nothing goes while it is at its bound";
  EXPECT_EQ(b.outstanding(), 2U);

  ASSERT_TRUE(b.finish(0, 10));
  const auto first = b.release_held();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->offset, 2);
  b.dispatched(first->offset, 10);
  EXPECT_FALSE(b.release_held()) << "at its bound again";
  ASSERT_TRUE(b.finish(1, 10));
  EXPECT_EQ(b.release_held()->offset, 3);
  EXPECT_EQ(b.held_count(), 0U);
}

TEST(PartitionBook, WithoutABoundOfItsOwnItNeverHoldsNorAsksForBackpressure) {
  partition_book b{own_bound(0), {}, 0};
  send(b, {0, 1, 2, 3, 4, 5}, 0);
  EXPECT_FALSE(b.at_own_bound());
  EXPECT_FALSE(b.behind_hold());
  EXPECT_EQ(b.backpressure(), std::nullopt);
}

TEST(PartitionBook, ALargeHoldAsksForAPauseAndHalfOfItForTheResume) {
  partition_book b{own_bound(1, 4), {}, 0};
  send(b, {0}, 0);
  EXPECT_EQ(b.backpressure(), std::optional<bool>{false}) << "nothing held: fetching";
  for (const std::int64_t offset : {1, 2, 3}) {
    ASSERT_EQ(b.track(offset, 0), offset_tracker::track_result::tracked);
    b.hold(rec(p0, offset));
  }
  EXPECT_EQ(b.backpressure(), std::nullopt) << "3 held: between half and the route's bound";
  ASSERT_EQ(b.track(4, 0), offset_tracker::track_result::tracked);
  b.hold(rec(p0, 4));
  EXPECT_EQ(b.backpressure(), std::optional<bool>{true}) << "the route's bound held";

  ASSERT_TRUE(b.finish(0, 4000));  // one record in 4 s: two seconds of it is less than 4
  b.dispatched(b.release_held()->offset, 4000);
  EXPECT_EQ(b.backpressure(), std::nullopt) << "3 held";
  ASSERT_TRUE(b.finish(1, 4000));
  b.dispatched(b.release_held()->offset, 4000);
  EXPECT_EQ(b.backpressure(), std::optional<bool>{false}) << "half the bound held";
}

TEST(PartitionBook, AFastPartitionPausesOnlyAtTwoSecondsOfWhatItDelivers) {
  partition_book b{own_bound(1, 2), {}, 0};
  send(b, {0}, 0);
  ASSERT_TRUE(b.finish(0, 100));  // 100 ms with the pool: two seconds at its bound are 20
  send(b, {1}, 100);
  for (std::int64_t offset = 2; offset < 21; ++offset) {
    ASSERT_EQ(b.track(offset, 0), offset_tracker::track_result::tracked);
    b.hold(rec(p0, offset));
  }
  EXPECT_EQ(b.held_count(), 19U);
  EXPECT_NE(b.backpressure(), std::optional<bool>{true});
  ASSERT_EQ(b.track(21, 0), offset_tracker::track_result::tracked);
  b.hold(rec(p0, 21));
  EXPECT_EQ(b.backpressure(), std::optional<bool>{true});
}

TEST(PartitionBook, AnOutcomeOfARecordNotInFlightOrWithheldChangesNothing) {
  partition_book b{own_bound(0), {}, 0};
  send(b, {0, 1}, 0);
  EXPECT_FALSE(b.finish(7, 0));
  ASSERT_TRUE(b.begin_revoke());
  EXPECT_FALSE(b.begin_revoke()) << "once";
  b.withhold(1);
  EXPECT_FALSE(b.finish(1, 0)) << "withheld: the next owner's";
  EXPECT_TRUE(b.finish(0, 0));
  EXPECT_EQ(b.tracker().in_flight(), 1U);
}

TEST(PartitionBook, ARevokeWithholdsWhatItHoldsAndKnowsWhatWentOut) {
  partition_book b{own_bound(1), {}, 0};
  send(b, {0}, 0);
  for (const std::int64_t offset : {1, 2}) {
    ASSERT_EQ(b.track(offset, 0), offset_tracker::track_result::tracked);
    b.hold(rec(p0, offset));
  }
  ASSERT_EQ(b.track(3, 0), offset_tracker::track_result::tracked);
  b.entered_overflow(3);
  ASSERT_TRUE(b.begin_revoke());
  b.withhold(3);  // the core took it out of the route's overflow
  EXPECT_EQ(b.withhold_held(), 2U);
  EXPECT_FALSE(b.in_overflow());
  EXPECT_EQ(b.withheld_count(), 3U);
  EXPECT_EQ(b.handed_out_offsets(), (std::set<std::int64_t>{0}));
  EXPECT_EQ(b.outstanding(), 1U);
}

TEST(PartitionBook, ItsHeadIsHeldWhileFirstInTheOverflowOrTheHold) {
  partition_book b{own_bound(0), {}, 0};
  ASSERT_EQ(b.track(0, 0), offset_tracker::track_result::tracked);
  b.entered_overflow(0);
  EXPECT_TRUE(b.head_held());
  b.left_overflow();
  b.dispatched(0, 0);
  EXPECT_FALSE(b.head_held());
}

TEST(PartitionBook, ItArmsOneWakeForTheEarlierTimeAndAgainOnceItFired) {
  auto s = own_bound(0);
  s.head_of_line_age_ms = 1000;
  partition_book b{s, {}, 0};
  send(b, {0}, 0);
  (void)b.check_head(0);
  EXPECT_EQ(b.arm_wake(std::nullopt, false), std::optional<std::int64_t>{1000}) << "its age";
  EXPECT_EQ(b.arm_wake(std::int64_t{2000}, false), std::nullopt) << "an earlier one is armed";
  EXPECT_EQ(b.arm_wake(std::int64_t{400}, false), std::optional<std::int64_t>{401})
      << "a due time before it";

  b.woke(300, std::int64_t{1000});  // early by a wall clock set back, not the one armed last
  EXPECT_EQ(b.arm_wake(std::int64_t{400}, false), std::nullopt) << "401 still armed";
  b.woke(300, std::int64_t{401});  // the one armed, early by the wall clock
  EXPECT_EQ(b.arm_wake(std::int64_t{400}, false), std::optional<std::int64_t>{401});
  b.woke(401, std::nullopt);
  EXPECT_EQ(b.arm_wake(std::nullopt, true), std::nullopt) << "a head waiting has no deadline";
}

TEST(PartitionBook, ItsHeadIsReportedOnceBeyondTheBoundInRecords) {
  auto s = own_bound(0);
  s.head_of_line_records = 2;
  partition_book b{s, {}, 0};
  send(b, {0, 1}, 0);
  EXPECT_EQ(b.check_head(0), std::nullopt);
  send(b, {2}, 0);
  EXPECT_EQ(b.check_head(0), std::optional<std::int64_t>{0});
  EXPECT_EQ(b.check_head(0), std::nullopt) << "once";
}

TEST(PartitionBook, ItKnowsItsBlockedRecordsUntilTheLastFinished) {
  partition_book b{own_bound(0), {}, 0};
  EXPECT_TRUE(b.set_blocked(4, true));
  EXPECT_TRUE(b.set_blocked(5, true));
  EXPECT_EQ(b.blocked_count(), 2U);
  EXPECT_FALSE(b.unblock_finished(4));
  EXPECT_FALSE(b.unblock_finished(9)) << "never blocked";
  EXPECT_TRUE(b.unblock_finished(5));
  EXPECT_FALSE(b.set_blocked(6, false));
}

TEST(PartitionBook, ItIsPausedSinceTheFirstStatusThatSawItPaused) {
  partition_book b{own_bound(0), {}, 0};
  EXPECT_EQ(b.paused_since(false, 5), std::nullopt);
  EXPECT_EQ(b.paused_since(true, 10), std::optional<std::int64_t>{10});
  EXPECT_EQ(b.paused_since(true, 20), std::optional<std::int64_t>{10});
  EXPECT_EQ(b.paused_since(false, 30), std::nullopt);
}

TEST(PartitionBook, ItsSeedIsSkippedWhenFetched) {
  done_offsets seed;
  seed.add(1, 3);
  partition_book b{own_bound(0), seed, 0};
  EXPECT_EQ(b.track(0, 0), offset_tracker::track_result::tracked);
  EXPECT_EQ(b.track(1, 0), offset_tracker::track_result::already_done);
  EXPECT_EQ(b.track(2, 0), offset_tracker::track_result::already_done);
  EXPECT_EQ(b.track(3, 0), offset_tracker::track_result::tracked);
}

}  // namespace
}  // namespace courier
