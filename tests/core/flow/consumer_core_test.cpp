#include "core/flow/consumer_core.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <set>

#include <limits>

#include <gtest/gtest.h>

#include "core/retry/retry_headers.hpp"
#include "tests/core/flow/consumer_core_fakes.hpp"

namespace courier {
namespace {

using ids = std::vector<partition_id>;
using testing::bounded;
using testing::bounded_with_tier;
using testing::commit_all;
using testing::due_rec;
using testing::fake_io;
using testing::fresh;
using testing::give_up;
using testing::offsets_of;
using testing::p0;
using testing::p1;
using testing::rec;
using testing::stored;
using testing::tier0;

TEST(ConsumerCore, DispatchesWhileTheRouteHasRoomAndKeepsTheRestInOverflowInOrder) {
  fake_io io;
  consumer_core core{bounded(2), io};
  core.assign(fresh({p0}), 0);
  EXPECT_EQ(core.take(rec(p0, 0), 0), consumer_core::intake::dispatched);
  EXPECT_EQ(core.take(rec(p0, 1), 0), consumer_core::intake::dispatched);
  EXPECT_EQ(core.take(rec(p0, 2), 0), consumer_core::intake::overflowed);
  EXPECT_EQ(core.take(rec(p0, 3), 0), consumer_core::intake::overflowed);
  EXPECT_EQ(io.dispatched.size(), 2U);
  EXPECT_EQ(core.room(), 0U);
  EXPECT_EQ(core.outstanding(), 2U);
  EXPECT_EQ(core.in_flight(), 4U);
  EXPECT_TRUE(io.paused.empty()) << "a full route pauses nothing: it polls rarely instead";

  ASSERT_TRUE(core.complete(p0, 1, delivery_end::delivered, 0));
  core.release_overflow(0);
  ASSERT_EQ(io.dispatched.size(), 3U);
  EXPECT_EQ(io.dispatched.back().offset, 2) << "oldest first";
  EXPECT_EQ(core.take(rec(p0, 4), 0), consumer_core::intake::overflowed)
      << "behind the overflow, even with room";
}

TEST(ConsumerCore, AFullRouteIsDueARefillOnlyOnceAThirtySecondOfItsBoundIsFree) {
  fake_io io;
  consumer_core core{bounded(320), io};
  core.assign(fresh({p0}), 0);
  EXPECT_EQ(core.refill_batch(), 10U);
  EXPECT_TRUE(core.refill_due()) << "an empty route";
  for (std::int64_t o = 0; o < 320; ++o) {
    ASSERT_EQ(core.take(rec(p0, o), 0), consumer_core::intake::dispatched);
  }
  EXPECT_FALSE(core.refill_due());
  for (std::int64_t o = 0; o < 9; ++o) {
    ASSERT_TRUE(core.complete(p0, o, delivery_end::delivered, 0));
  }
  EXPECT_EQ(core.room(), 9U);
  EXPECT_FALSE(core.refill_due()) << "room, but less than a refill";
  ASSERT_TRUE(core.complete(p0, 9, delivery_end::delivered, 0));
  EXPECT_TRUE(core.refill_due());
  EXPECT_EQ(core.take(rec(p0, 320), 0), consumer_core::intake::dispatched)
      << "what is taken with room is handed out, due or not";
  EXPECT_FALSE(core.refill_due());
}

TEST(ConsumerCore, ASmallRouteIsDueARefillAsSoonAsOneRecordIsFree) {
  for (const std::size_t bound : {1U, 2U, 31U}) {
    fake_io io;
    consumer_core core{bounded(bound), io};
    core.assign(fresh({p0}), 0);
    EXPECT_EQ(core.refill_batch(), 1U) << bound;
    for (std::int64_t o = 0; o < static_cast<std::int64_t>(bound); ++o) {
      core.take(rec(p0, o), 0);
    }
    EXPECT_FALSE(core.refill_due()) << bound;
    core.complete(p0, 0, delivery_end::delivered, 0);
    EXPECT_TRUE(core.refill_due()) << bound;
  }
}

TEST(ConsumerCore, StoresTheLowestOffsetStillInFlightAsRecordsCompleteOutOfOrder) {
  fake_io io;
  consumer_core core{bounded(10), io};
  core.assign(fresh({p0}), 0);
  for (std::int64_t o = 10; o < 14; ++o) {
    core.take(rec(p0, o), 0);
  }
  core.complete(p0, 12, delivery_end::delivered, 0);
  EXPECT_EQ(stored(core, io).at(p0), 10) << "10 is still in flight";
  core.complete(p0, 10, delivery_end::delivered, 0);
  EXPECT_EQ(stored(core, io).at(p0), 11);
  core.complete(p0, 11, delivery_end::delivered, 0);
  EXPECT_EQ(stored(core, io).at(p0), 13);
  core.complete(p0, 13, delivery_end::delivered, 0);
  EXPECT_EQ(stored(core, io).at(p0), 14) << "nothing in flight: the next one to read";
  EXPECT_FALSE(core.complete(p0, 13, delivery_end::delivered, 0))
      << "an outcome twice changes nothing";
  EXPECT_EQ(core.outstanding(), 0U);
}

TEST(ConsumerCore, DropsARecordSeenAgainAfterARewindWithoutDisturbingTheCounts) {
  fake_io io;
  consumer_core core{bounded(4), io};
  core.assign(fresh({p0}), 0);
  core.take(rec(p0, 0), 0);
  core.take(rec(p0, 1), 0);
  core.complete(p0, 0, delivery_end::delivered, 0);
  EXPECT_EQ(core.take(rec(p0, 0), 0), consumer_core::intake::duplicate) << "finished";
  EXPECT_EQ(core.take(rec(p0, 1), 0), consumer_core::intake::duplicate) << "still in flight";
  EXPECT_EQ(core.counts()[consumer_counter::rewound_duplicates], 2U);
  EXPECT_EQ(io.dispatched.size(), 2U);
  EXPECT_EQ(core.outstanding(), 1U);
  core.complete(p0, 1, delivery_end::delivered, 0);
  EXPECT_EQ(core.outstanding(), 0U) << "no underflow";
  EXPECT_EQ(core.room(), 4U);
}

TEST(ConsumerCore, RevokeWhilePausedStoresTheCommitPointAndForgetsThePartition) {
  fake_io io;
  consumer_core core{bounded(8), io};
  core.assign(fresh({p0, p1}), 0);
  core.take(rec(p0, 5), 0);
  core.take(rec(p0, 6), 0);
  core.take(rec(p1, 0), 0);
  EXPECT_EQ(core.set_route_reason(pause_reason::breaker, true), (ids{p0, p1}));
  EXPECT_EQ(io.paused, (std::set<partition_id>{p0, p1}));
  core.complete(p0, 6, delivery_end::delivered, 0);

  give_up(core, io, {p0});
  io.paused.erase(p0);  // the librdkafka wrapper resumes a revoked partition itself
  EXPECT_EQ(stored(core, io).at(p0), 5);
  EXPECT_FALSE(core.assigned(p0));
  EXPECT_EQ(core.outstanding(), 1U) << "p0's record in flight no longer counts";
  EXPECT_FALSE(core.complete(p0, 5, delivery_end::delivered, 0))
      << "its outcome comes too late: the next owner has it";
  EXPECT_EQ(core.take(rec(p0, 7), 0), consumer_core::intake::not_assigned);

  core.assign(fresh({p0}), 0);
  EXPECT_TRUE(io.paused.count(p0)) << "a new assignment takes the route-wide reason";
  core.set_route_reason(pause_reason::breaker, false);
  EXPECT_TRUE(io.paused.empty());
}

// An eager rebalance revokes every partition and usually hands the same ones back: the records
// the delivery pool had are fetched again and in flight anew while the pool still finishes the
// old copies. An old copy's outcome is not the new copy's: counted as one, the route's count
// of records out went below what it holds back, and a route full of re-fetched records never
// had room again.
TEST(ConsumerCore, AnOutcomeFromBeforeARevokeDoesNotFinishTheRecordFetchedAgain) {
  fake_io io;
  consumer_core core{bounded(2), io};
  core.assign(fresh({p0, p1}), 0);
  EXPECT_EQ(core.take(rec(p0, 10), 0), consumer_core::intake::dispatched);
  EXPECT_EQ(core.take(rec(p0, 11), 0), consumer_core::intake::dispatched);

  give_up(core, io, {p0, p1});
  core.assign(fresh({p0, p1}), 1);
  EXPECT_EQ(stored(core, io).at(p0), 10);
  EXPECT_EQ(core.take(rec(p1, 5), 1), consumer_core::intake::dispatched);
  EXPECT_EQ(core.take(rec(p1, 6), 1), consumer_core::intake::dispatched);
  EXPECT_EQ(core.take(rec(p0, 10), 1), consumer_core::intake::overflowed) << "fetched again";
  EXPECT_EQ(core.take(rec(p0, 11), 1), consumer_core::intake::overflowed);

  EXPECT_FALSE(core.complete(p0, 10, delivery_end::delivered, 2)) << "the old copy's outcome";
  EXPECT_FALSE(core.complete(p0, 11, delivery_end::delivered, 2));
  EXPECT_EQ(core.outstanding(), 2U);
  EXPECT_EQ(core.in_flight(), 4U) << "p0's new copies are still to deliver";
  EXPECT_EQ(stored(core, io).at(p0), 10) << "nor is anything of p0 committed for them";
  EXPECT_TRUE(core.complete(p1, 5, delivery_end::delivered, 2));
  EXPECT_TRUE(core.complete(p1, 6, delivery_end::delivered, 2));
  EXPECT_EQ(core.outstanding(), 0U);
  EXPECT_TRUE(core.refill_due());
  core.release_overflow(0);
  ASSERT_EQ(io.dispatched.size(), 6U) << "the new copies go out";
  EXPECT_TRUE(core.complete(p0, 10, delivery_end::delivered, 3));
  EXPECT_TRUE(core.complete(p0, 11, delivery_end::delivered, 3));
  EXPECT_EQ(stored(core, io).at(p0), 12);
  EXPECT_EQ(core.in_flight(), 0U);
}

// The same with the new copy's outcome first: whichever comes first is taken for the old
// copy's, so the offset is committed only once both are in.
TEST(ConsumerCore, AfterARevokeAnOffsetCompletesOnlyWhenBothCopiesAreIn) {
  fake_io io;
  consumer_core core{bounded(8), io};
  core.assign(fresh({p0}), 0);
  core.take(rec(p0, 3), 0);
  give_up(core, io, {p0});
  core.assign(fresh({p0}), 1);
  EXPECT_EQ(core.take(rec(p0, 3), 1), consumer_core::intake::dispatched);
  EXPECT_FALSE(core.complete(p0, 3, delivery_end::delivered, 2));
  EXPECT_EQ(core.in_flight(), 1U);
  EXPECT_EQ(stored(core, io).at(p0), 3);
  EXPECT_TRUE(core.complete(p0, 3, delivery_end::retried, 3));
  EXPECT_EQ(stored(core, io).at(p0), 4);
  EXPECT_FALSE(core.complete(p0, 3, delivery_end::delivered, 4)) << "nothing is owed any more";
}

// Records never handed out (in the due gate, in overflow) report no outcome: nothing waits
// for one, and the partition's next assignment counts its own copies' outcomes.
TEST(ConsumerCore, RecordsNotHandedOutBeforeARevokeOweNoOutcome) {
  fake_io io;
  consumer_core core{bounded_with_tier(1), io};
  core.assign(fresh({p0, tier0}), 0);
  core.take(rec(p0, 0), 0);
  core.take(rec(p0, 1), 0);  // overflow
  EXPECT_EQ(core.take(due_rec(tier0, 7, 10'000), 1'000), consumer_core::intake::gated);
  give_up(core, io, {p0, tier0});
  io.paused.erase(tier0);  // the librdkafka wrapper resumes a revoked partition itself
  core.assign(fresh({p0, tier0}), 2'000);
  EXPECT_FALSE(core.complete(p0, 0, delivery_end::delivered, 2'000)) << "p0@0 was handed out";
  EXPECT_EQ(core.take(rec(p0, 0), 2'000), consumer_core::intake::dispatched);
  EXPECT_TRUE(core.complete(p0, 0, delivery_end::delivered, 2'000));
  EXPECT_EQ(core.take(rec(p0, 1), 2'000), consumer_core::intake::dispatched);
  EXPECT_TRUE(core.complete(p0, 1, delivery_end::delivered, 2'000)) << "p0@1 was not";
  EXPECT_EQ(core.take(due_rec(tier0, 7, 1'500), 2'000), consumer_core::intake::dispatched);
  EXPECT_TRUE(core.complete(tier0, 7, delivery_end::delivered, 2'000)) << "nor was tier0@7";
  EXPECT_EQ(core.in_flight(), 0U);
}

TEST(ConsumerCore, TellsASourcePartitionPausedFromARetryTierWaitingForADueRecord) {
  fake_io io;
  consumer_core core{bounded_with_tier(8), io};
  core.assign(fresh({p0, tier0}), 0);
  EXPECT_FALSE(core.source_paused());
  EXPECT_EQ(core.take(due_rec(tier0, 0, 10'000), 1'000), consumer_core::intake::gated);
  EXPECT_EQ(core.paused_count(), 1U) << "the tier waits for its due record";
  EXPECT_FALSE(core.source_paused());
  core.set_route_reason(pause_reason::breaker, true);
  EXPECT_TRUE(core.source_paused());
  core.set_route_reason(pause_reason::breaker, false);
  EXPECT_FALSE(core.source_paused());
}

// fetch_starvation leaves out the refetch of a resumed source partition; a retry tier's wait
// for its due record is routine and does not count.
TEST(ConsumerCore, CountsTheFlipsOfASourcePartitionsFetchingNotOfARetryTiers) {
  fake_io io;
  consumer_core core{bounded_with_tier(8), io};
  core.assign(fresh({p0, tier0}), 0);
  EXPECT_EQ(core.source_pause_flips(), 0U);
  EXPECT_EQ(core.take(due_rec(tier0, 0, 10'000), 1'000), consumer_core::intake::gated);
  core.wake(tier0, 10'001);
  EXPECT_EQ(core.source_pause_flips(), 0U) << "the tier paused and resumed";
  core.set_route_reason(pause_reason::breaker, true);
  EXPECT_EQ(core.source_pause_flips(), 1U);
  core.set_route_reason(pause_reason::shutdown, true);
  EXPECT_EQ(core.source_pause_flips(), 1U) << "paused already";
  core.set_route_reason(pause_reason::shutdown, false);
  core.set_route_reason(pause_reason::breaker, false);
  EXPECT_EQ(core.source_pause_flips(), 2U) << "resumed";
}

TEST(ConsumerCore, RevokeDropsTheRecordsHeldInTheGateAndInOverflow) {
  fake_io io;
  consumer_core core{bounded_with_tier(1), io};
  core.assign(fresh({p0, tier0}), 0);
  core.take(rec(p0, 0), 0);
  core.take(rec(p0, 1), 0);  // overflow: the route is full
  EXPECT_EQ(core.take(due_rec(tier0, 0, 10'000), 1'000), consumer_core::intake::gated);
  EXPECT_EQ(core.in_flight(), 3U);

  give_up(core, io, {p0, tier0});
  EXPECT_EQ(core.in_flight(), 0U);
  EXPECT_EQ(core.outstanding(), 0U);
  EXPECT_EQ(core.room(), 1U);
  EXPECT_EQ(stored(core, io).at(p0), 0) << "nothing of p0 finished";
  EXPECT_EQ(stored(core, io).at(tier0), 0);
  core.release_overflow(0);
  core.wake(tier0, 20'000);
  EXPECT_EQ(io.dispatched.size(), 1U) << "nothing of a revoked partition is handed out";
}

// The wake timer runs on the monotonic clock, the due times on the wall clock: with the wall
// clock set back meanwhile, the timer fires before the record is due by it. Left unarmed, the
// tier stayed paused with its record held until a rebalance.
TEST(ConsumerCore, AWakeThatFiresBeforeItsTimeByTheWallClockIsArmedAgain) {
  fake_io io;
  consumer_core core{bounded_with_tier(8), io};
  core.assign(fresh({tier0}), 0);
  EXPECT_EQ(core.take(due_rec(tier0, 0, 100), 0), consumer_core::intake::gated);
  ASSERT_EQ(io.wakes.size(), 1U);
  EXPECT_EQ(io.wakes.back().second, 101);

  core.wake(tier0, 99, 101);  // armed for 101, fired at 99 by a clock set back
  EXPECT_TRUE(io.dispatched.empty());
  ASSERT_EQ(io.wakes.size(), 2U) << "no timer left for the held record";
  EXPECT_EQ(io.wakes.back().second, 101);
  core.wake(tier0, 101, 101);
  EXPECT_EQ(io.dispatched.size(), 1U);
  EXPECT_TRUE(io.paused.empty());
}

TEST(ConsumerCore, ARetryRecordWaitsInTheGateWithItsPartitionPausedUntilItIsDue) {
  fake_io io;
  consumer_core core{bounded_with_tier(8), io};
  core.assign(fresh({tier0}), 0);
  EXPECT_EQ(core.take(due_rec(tier0, 0, 5'000), 1'000), consumer_core::intake::gated);
  EXPECT_EQ(core.take(due_rec(tier0, 1, 4'000), 1'000), consumer_core::intake::gated)
      << "behind the first, in offset order";
  EXPECT_TRUE(io.paused.count(tier0));
  ASSERT_EQ(io.wakes.size(), 1U) << "one wake per partition, not one per record";
  EXPECT_EQ(io.wakes[0].second, 5'001);

  core.wake(tier0, 3'000);  // early: nothing is due
  EXPECT_TRUE(io.dispatched.empty());
  core.wake(tier0, 5'001);
  ASSERT_EQ(io.dispatched.size(), 2U);
  EXPECT_EQ(io.dispatched[0].offset, 0);
  EXPECT_FALSE(io.paused.count(tier0));
  EXPECT_EQ(core.take(due_rec(tier0, 2, 0), 6'000), consumer_core::intake::dispatched);
}

TEST(ConsumerCore, RecordsLeavingTheGateTakeTheRoomThereIsAndOverflowTheRest) {
  fake_io io;
  consumer_core core{bounded_with_tier(3), io};
  core.assign(fresh({p0, tier0}), 0);
  core.take(rec(p0, 0), 0);
  core.take(rec(p0, 1), 0);
  for (std::int64_t o = 0; o < 3; ++o) {
    EXPECT_EQ(core.take(due_rec(tier0, o, 1'000), 0), consumer_core::intake::gated);
  }
  core.wake(tier0, 1'001);
  ASSERT_EQ(io.dispatched.size(), 3U) << "one slot was free";
  EXPECT_EQ(io.dispatched.back().topic, tier0.topic);
  EXPECT_EQ(core.outstanding(), 3U);
  EXPECT_EQ(core.in_flight(), 5U);
}

TEST(ConsumerCore, AMalformedDueTimeIsReportedAndTheRecordDeliveredNow) {
  fake_io io;
  consumer_core core{bounded_with_tier(8), io};
  core.assign(fresh({tier0}), 0);
  auto r = rec(tier0, 3);
  r.headers.emplace_back("courier.retry.due", "soon");
  EXPECT_EQ(core.take(std::move(r), 0), consumer_core::intake::dispatched);
  EXPECT_EQ(io.malformed, std::vector<std::int64_t>{3});
}

// A due time courier cannot have written (microseconds, a clock far off, INT64_MAX) is reported
// and not waited for: held, it would stop the partition for as long, and its wake-up would
// overflow. One within the longest delay and the clock allowance is held.
TEST(ConsumerCore, ADueTimeFurtherAheadThanTheLongestDelayIsReportedAndNotWaitedFor) {
  fake_io io;
  auto s = bounded_with_tier(8);
  s.longest_retry_delay = std::chrono::minutes{5};
  consumer_core core{s, io};
  core.assign(fresh({tier0}), 0);
  const std::int64_t now = 1'764'000'000'000;  // ms since the epoch
  auto in_micros = rec(tier0, 0);
  in_micros.headers.emplace_back("courier.retry.due", std::to_string(now * 1000));
  EXPECT_EQ(core.take(std::move(in_micros), now), consumer_core::intake::dispatched);
  auto at_the_end_of_time = rec(tier0, 1);
  at_the_end_of_time.headers.emplace_back("courier.retry.due",
                                          std::to_string(std::numeric_limits<std::int64_t>::max()));
  EXPECT_EQ(core.take(std::move(at_the_end_of_time), now), consumer_core::intake::dispatched);
  EXPECT_EQ(io.malformed, (std::vector<std::int64_t>{0, 1}));
  EXPECT_TRUE(io.wakes.empty());

  auto skewed = rec(tier0, 2);  // a 5-minute tier written by a clock 4 minutes ahead
  skewed.headers.emplace_back("courier.retry.due", std::to_string(now + 9 * 60 * 1000));
  EXPECT_EQ(core.take(std::move(skewed), now), consumer_core::intake::gated);
  EXPECT_EQ(io.malformed.size(), 2U);
  ASSERT_EQ(io.wakes.size(), 1U);
  EXPECT_EQ(io.wakes.front().second, now + 9 * 60 * 1000 + 1);
}

TEST(ConsumerCore, AHeadThatHoldsThePartitionBackBeyondTheRecordBoundIsExpeditedOnce) {
  fake_io io;
  auto s = bounded(100);
  s.head_of_line_records = 3;
  consumer_core core{s, io};
  core.assign(fresh({p0}), 0);
  for (std::int64_t o = 0; o < 6; ++o) {
    core.take(rec(p0, o), 0);
    core.complete(p0, o == 0 ? -1 : o, delivery_end::delivered, 0);  // all but the head finish
  }
  using hit = std::pair<partition_id, std::int64_t>;
  EXPECT_EQ(io.expedited, (std::vector<hit>{{p0, 0}}));
  core.complete(p0, 0, delivery_end::delivered, 0);  // moved to a tier and acknowledged
  EXPECT_EQ(stored(core, io).at(p0), 6);
}

TEST(ConsumerCore, AHeadOlderThanTheAgeBoundIsExpeditedWhenItsWakeFires) {
  fake_io io;
  auto s = bounded(100);
  s.head_of_line_age = std::chrono::milliseconds{30'000};
  consumer_core core{s, io};
  core.assign(fresh({p0}), 0);
  core.take(rec(p0, 0), 1'000);
  core.take(rec(p0, 1), 2'000);
  ASSERT_FALSE(io.wakes.empty());
  EXPECT_EQ(io.wakes.back(), (std::pair<partition_id, std::int64_t>{p0, 31'000}));
  core.wake(p0, 20'000);  // a stray early wake
  EXPECT_TRUE(io.expedited.empty());
  core.wake(p0, 31'000);
  using hit = std::pair<partition_id, std::int64_t>;
  EXPECT_EQ(io.expedited, (std::vector<hit>{{p0, 0}}));
  core.complete(p0, 0, delivery_end::delivered, 32'000);  // offset 1 takes over as the head now
  EXPECT_EQ(io.wakes.back(), (std::pair<partition_id, std::int64_t>{p0, 62'000}));
}

// A tier record waiting for its due time is not a stuck head: the age bound starts when the gate
// releases it, and is not spent while the delivery pool cannot have it (it was reported once, at
// the bound, from inside the gate, where moving it on does nothing, and never again).
TEST(ConsumerCore, AHeadWaitingInTheDueGateIsAgedFromItsReleaseNotFromItsFetch) {
  fake_io io;
  auto s = bounded_with_tier(100);
  s.head_of_line_age = std::chrono::milliseconds{60'000};
  s.longest_retry_delay = std::chrono::minutes{5};
  consumer_core core{s, io};
  core.assign(fresh({tier0}), 0);
  for (std::int64_t o = 0; o < 4; ++o) {
    auto r = rec(tier0, o);
    r.headers.emplace_back("courier.retry.due", "300000");
    EXPECT_EQ(core.take(std::move(r), 0), consumer_core::intake::gated);
  }
  ASSERT_FALSE(io.wakes.empty());
  EXPECT_EQ(io.wakes.back(), (std::pair<partition_id, std::int64_t>{tier0, 300'001}))
      << "the first wake is the due time's, not the age bound's";
  core.wake(tier0, 300'001, 300'001);
  EXPECT_EQ(io.dispatched.size(), 4U);
  EXPECT_TRUE(io.expedited.empty()) << "nothing to move on while it was in the gate";
  EXPECT_EQ(io.wakes.back(), (std::pair<partition_id, std::int64_t>{tier0, 360'001}));
  core.wake(tier0, 360'001, 360'001);
  using hit = std::pair<partition_id, std::int64_t>;
  EXPECT_EQ(io.expedited, (std::vector<hit>{{tier0, 0}}));
}

// A head waiting in overflow for room (the route full with another partition's records) is not
// stuck either: an expedite would find nothing in the delivery pool, and the head would count as
// reported, so the bound was never enforced for it once it was handed out. It is aged from the
// moment it leaves overflow.
TEST(ConsumerCore, AHeadWaitingInOverflowIsAgedFromItsDispatchNotFromItsFetch) {
  fake_io io;
  auto s = bounded(1);
  s.head_of_line_age = std::chrono::milliseconds{30'000};
  consumer_core core{s, io};
  core.assign(fresh({p0, p1}), 0);
  EXPECT_EQ(core.take(rec(p1, 0), 0), consumer_core::intake::dispatched);  // the route is full
  EXPECT_EQ(core.take(rec(p0, 0), 1'000), consumer_core::intake::overflowed);
  EXPECT_EQ(core.take(rec(p0, 1), 2'000), consumer_core::intake::overflowed);
  using at = std::pair<partition_id, std::int64_t>;
  for (const auto& w : io.wakes) {
    EXPECT_NE(w.first, p0) << "an age wake for a head the pool does not have, at " << w.second;
  }
  core.wake(p0, 31'000);  // had one been armed
  EXPECT_TRUE(io.expedited.empty()) << "nothing to move on while it waits in overflow";

  core.complete(p1, 0, delivery_end::delivered, 40'000);
  core.release_overflow(40'000);
  ASSERT_EQ(io.dispatched.size(), 2U);
  EXPECT_EQ(io.dispatched.back().offset, 0);
  ASSERT_FALSE(io.wakes.empty());
  EXPECT_EQ(io.wakes.back(), (at{p0, 70'000})) << "aged from its dispatch at 40,000";
  core.wake(p0, 70'000);
  EXPECT_EQ(io.expedited, (std::vector<at>{{p0, 0}}));
}

// A pause drops librdkafka's prefetch of the partition and a resume waits for a refetch: at its
// own bound a partition keeps what it fetched and hands it out as its outcomes come back.
TEST(ConsumerCore, APartitionAtItsOwnBoundHoldsWhatItFetchedAndHandsItOutInOrderWithoutAPause) {
  fake_io io;
  auto s = bounded(100);
  s.max_in_flight_per_partition = 4;
  consumer_core core{s, io};
  core.assign(fresh({p0, p1}), 0);
  for (std::int64_t o = 0; o < 10; ++o) {
    EXPECT_EQ(core.take(rec(p0, o), 0),
              o < 4 ? consumer_core::intake::dispatched : consumer_core::intake::overflowed);
  }
  EXPECT_EQ(offsets_of(io.dispatched, p0), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(core.outstanding(), 4U);
  EXPECT_EQ(core.in_flight(), 10U);
  EXPECT_EQ(core.take(rec(p1, 0), 0), consumer_core::intake::dispatched)
      << "the other partition is not held back";
  // Outcomes in any order: each one lets the next held record out, the oldest first.
  for (const std::int64_t o : {2, 0, 3, 1, 4, 5, 6, 7, 8, 9}) {
    EXPECT_TRUE(core.complete(p0, o, delivery_end::delivered, 0));
    EXPECT_LE(core.outstanding(), 5U) << "4 of p0 and p1's one at most";
    EXPECT_TRUE(io.paused.empty()) << "no pause at the bound";
  }
  EXPECT_EQ(core.counts()[consumer_counter::backpressure_pauses], 0U);
  EXPECT_EQ(offsets_of(io.dispatched, p0),
            (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}))
      << "every record once, in order";
  EXPECT_EQ(core.view(p0)->in_flight, 0U);
  EXPECT_EQ(stored(core, io).at(p0), 10);
}

// The hold is bounded: once it reaches the route's max_in_flight the partition is paused, and it
// is resumed when the hold is down to half, so what is left covers the refetch.
TEST(ConsumerCore, APartitionWhoseHoldGrowsLargeIsPausedAndResumedWhenItIsDownToHalf) {
  fake_io io;
  auto s = bounded(8);
  s.max_in_flight_per_partition = 2;
  consumer_core core{s, io};
  core.assign(fresh({p0, p1}), 0);
  const std::int64_t slow = 10'000;  // a partner taking 10 s: two seconds of it is no hold at all
  for (std::int64_t o = 0; o < 9; ++o) {
    core.take(rec(p0, o), 0);
    EXPECT_TRUE(io.paused.empty()) << "held: " << o - 1;
  }
  core.take(rec(p0, 9), 0);
  EXPECT_EQ(io.paused, std::set<partition_id>{p0}) << "8 held";
  EXPECT_EQ(core.counts()[consumer_counter::backpressure_pauses], 1U);
  for (std::int64_t o = 0; o < 3; ++o) {
    core.complete(p0, o, delivery_end::delivered, slow);
    EXPECT_TRUE(io.paused.count(p0)) << "held: " << 7 - o;
  }
  core.complete(p0, 3, delivery_end::delivered, slow);
  EXPECT_TRUE(io.paused.empty()) << "4 held: half";
  core.take(rec(p0, 10), 0);
  EXPECT_TRUE(io.paused.empty());
  for (std::int64_t o = 4; o <= 10; ++o) {
    core.complete(p0, o, delivery_end::delivered, slow);
  }
  EXPECT_EQ(offsets_of(io.dispatched, p0),
            (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(core.counts()[consumer_counter::backpressure_pauses], 1U);
  EXPECT_EQ(core.in_flight(), 0U);
}

// A hold of two seconds of what the partition delivers at its bound is not large: what is left at
// the resume must cover librdkafka's refetch (about a second).
TEST(ConsumerCore, APartitionsHoldMayGrowToTwoSecondsOfWhatItDeliversAtItsBound) {
  fake_io io;
  auto s = bounded(4);
  s.max_in_flight_per_partition = 2;
  consumer_core core{s, io};
  core.assign(fresh({p0}), 0);
  core.take(rec(p0, 0), 0);
  core.take(rec(p0, 1), 0);
  ASSERT_TRUE(core.complete(p0, 0, delivery_end::delivered, 100));  // 100 ms with the pool
  ASSERT_TRUE(core.complete(p0, 1, delivery_end::delivered, 100));
  std::int64_t next = 2;
  std::size_t held = 0;
  while (io.paused.empty() && next < 1'000) {
    if (core.take(rec(p0, next++), 100) == consumer_core::intake::overflowed) {
      ++held;
    }
  }
  EXPECT_EQ(held, 40U) << "2 s x 2 records per 100 ms, not the route's 4";
}

TEST(ConsumerCore, ARecordThatCannotBeWrittenOnwardHoldsOnlyItsPartitionUntilItIsThrough) {
  fake_io io;
  consumer_core core{bounded(8), io};
  core.assign(fresh({p0, p1}), 0);
  core.take(rec(p0, 0), 0);
  core.take(rec(p0, 1), 0);
  core.take(rec(p1, 0), 0);
  EXPECT_TRUE(core.set_blocked(p0, 0, true));
  EXPECT_FALSE(core.set_blocked(p0, 1, true)) << "already held";
  EXPECT_EQ(io.paused, std::set<partition_id>{p0}) << "the other partition keeps flowing";
  EXPECT_EQ(core.blocked_count(p0), 2U);
  EXPECT_FALSE(core.set_blocked(p0, 0, false)) << "offset 1 still holds it";
  EXPECT_TRUE(io.paused.count(p0));
  core.complete(p0, 1, delivery_end::delivered,
                0);  // the router got it through: its outcome releases it too
  EXPECT_TRUE(io.paused.empty());
  EXPECT_EQ(core.blocked_count(p0), 0U);
  EXPECT_FALSE(core.set_blocked(tier0, 0, true)) << "not assigned: nothing to hold";
}

TEST(ConsumerCore, DrainWithEverythingInFlightStoresEachCommitPointAndCountsDown) {
  fake_io io;
  consumer_core core{bounded(6), io};
  core.assign(fresh({p0, p1}), 0);
  for (std::int64_t o = 0; o < 3; ++o) {
    core.take(rec(p0, o), 0);
    core.take(rec(p1, 100 + o), 0);
  }
  core.set_route_reason(pause_reason::shutdown, true);
  EXPECT_EQ(core.outstanding(), 6U);
  commit_all(core, io);
  EXPECT_EQ(stored(core, io).at(p0), 0);
  EXPECT_EQ(stored(core, io).at(p1), 100);
  for (std::int64_t o = 0; o < 3; ++o) {
    core.complete(p0, o, delivery_end::delivered, 0);
    core.complete(p1, 100 + o, delivery_end::delivered, 0);
  }
  EXPECT_EQ(core.outstanding(), 0U);
  commit_all(core, io);
  EXPECT_EQ(stored(core, io).at(p0), 3);
  EXPECT_EQ(stored(core, io).at(p1), 103);
}

// Random operation sequences against a plain model of the book: per partition the offsets in
// flight and the last one taken, and the records handed out and not finished.
TEST(ConsumerCore, RandomOperationSequencesAgreeWithASimpleModel) {
  for (std::uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng{seed};
    auto pick = [&](std::size_t n) {
      return std::uniform_int_distribution<std::size_t>{0, n - 1}(rng);
    };
    fake_io io;
    auto s = bounded(1 + pick(6));
    s.max_in_flight_per_partition = pick(2) == 0 ? 0 : 1 + pick(4);
    s.head_of_line_records = pick(3);
    s.gated_topics = {tier0.topic};
    consumer_core core{s, io};
    const std::vector<partition_id> all{p0, p1, tier0};

    struct model_partition {
      std::set<std::int64_t> in_flight;
      std::int64_t next = 0;  // the next offset librdkafka would fetch
      std::optional<std::int64_t> last;
    };
    std::map<partition_id, model_partition> model;
    std::map<partition_id, std::int64_t> fetch_position;  // survives revoke, like the broker's
    std::set<std::pair<partition_id, std::int64_t>> handed_out;  // dispatched, not finished
    // The outcomes the delivery pool owes, one per record it was handed (also those handed out
    // before a revoke, which it still finishes), and the revoked ones the core is to ignore.
    std::vector<std::pair<partition_id, std::int64_t>> owed;
    std::multiset<std::pair<partition_id, std::int64_t>> orphaned;
    std::size_t seen = 0;
    // Per partition: records taken, and finished by completion kind (delivered, retried, DLQ).
    std::map<partition_id, std::uint64_t> taken;
    std::map<partition_id, std::array<std::uint64_t, 3>> finished;
    // Per partition, the last offset handed out since it was assigned: none overtakes another.
    std::map<partition_id, std::int64_t> last_handed_out;
    // Per partition given up, the offsets done above its commit point then (and the outcomes of
    // records handed out before, come since): nothing was ever committed (the test answers no
    // commit), so the core takes them as done when it gets the partition back.
    std::map<partition_id, std::set<std::int64_t>> carried;
    // Per partition given up and not assigned since, its records handed out then.
    std::map<partition_id, std::set<std::int64_t>> lost_handed_out;

    for (int step = 0; step < 300; ++step) {
      const auto& p = all[pick(all.size())];
      switch (pick(9)) {
        case 0:
          if (!model.count(p)) {
            core.assign(fresh({p}), step);
            lost_handed_out.erase(p);
            model[p];
            model[p].next = fetch_position[p];
          }
          break;
        case 1:
          if (model.count(p)) {
            give_up(core, io, {p});
            io.paused.erase(p);
            last_handed_out.erase(p);
            const auto& m = model[p];
            fetch_position[p] =
                m.in_flight.empty() ? (m.last ? *m.last + 1 : m.next) : *m.in_flight.begin();
            auto& c = carried[p];
            if (!m.last) {
              c.clear();  // nothing taken: no commit point, nothing it can vouch for
            } else {
              c.erase(c.begin(), c.upper_bound(*m.last));
              for (auto o = fetch_position[p]; o <= *m.last; ++o) {
                if (m.in_flight.count(o) == 0) {
                  c.insert(o);
                }
              }
            }
            EXPECT_EQ(stored(core, io).count(p) ? stored(core, io).at(p) : fetch_position[p],
                      fetch_position[p]);
            for (auto it = handed_out.begin(); it != handed_out.end();) {
              if (it->first == p) {
                lost_handed_out[p].insert(it->second);
                orphaned.insert(*it);
                it = handed_out.erase(it);
              } else {
                it = std::next(it);
              }
            }
            model.erase(p);
          }
          break;
        case 2:
        case 3: {  // a poll hands over a record, sometimes one seen before (a rewind)
          if (!model.count(p)) {
            EXPECT_EQ(core.take(rec(p, fetch_position[p]), step),
                      consumer_core::intake::not_assigned);
            break;
          }
          auto& m = model[p];
          const bool rewind = m.last && pick(5) == 0;
          const auto offset = rewind ? *m.last - static_cast<std::int64_t>(pick(2)) : m.next;
          const auto got = p == tier0 ? core.take(due_rec(p, offset, step + pick(20)), step)
                                      : core.take(rec(p, offset), step);
          if (rewind || (m.last && offset <= *m.last)) {
            EXPECT_EQ(got, consumer_core::intake::duplicate);
          } else if (carried[p].count(offset) != 0) {
            EXPECT_EQ(got, consumer_core::intake::already_done) << "finished before it was lost";
            ++taken[p];
            m.last = offset;
            m.next = offset + 1 + static_cast<std::int64_t>(pick(2));
          } else {
            EXPECT_NE(got, consumer_core::intake::duplicate);
            ++taken[p];
            m.in_flight.insert(offset);
            m.last = offset;
            m.next = offset + 1 + static_cast<std::int64_t>(pick(2));  // gaps: compaction
          }
          break;
        }
        case 4:
        case 5:
          if (!owed.empty()) {  // an outcome, in any order, also of a record revoked since
            const auto i = pick(owed.size());
            const auto done = owed[i];
            owed[i] = owed.back();
            owed.pop_back();
            const auto how = static_cast<delivery_end>(pick(3));
            if (auto o = orphaned.find(done); o != orphaned.end()) {
              // The first outcome for a revoked record's offset is taken for the old copy's.
              EXPECT_FALSE(core.complete(done.first, done.second, how, step));
              orphaned.erase(o);
              if (lost_handed_out[done.first].erase(done.second) != 0) {
                carried[done.first].insert(done.second);  // done before it is assigned again
              }
              break;
            }
            ASSERT_EQ(handed_out.count(done), 1U);
            EXPECT_TRUE(core.complete(done.first, done.second, how, step));
            ++finished[done.first][static_cast<std::size_t>(how)];
            model[done.first].in_flight.erase(done.second);
            handed_out.erase(done);
          }
          break;
        case 6:
          core.release_overflow(0);
          break;
        case 7: {
          const auto reason = pick(2) == 0 ? pause_reason::breaker : pause_reason::shutdown;
          core.set_route_reason(reason, pick(2) == 0);
          break;
        }
        case 8:
          core.wake(p, step);
          break;
      }
      for (; seen < io.dispatched.size(); ++seen) {
        const auto& r = io.dispatched[seen];
        const partition_id rp{r.topic, r.partition};
        EXPECT_TRUE(model.count(rp) && model[rp].in_flight.count(r.offset))
            << "handed out a record not in flight";
        EXPECT_TRUE(handed_out.emplace(rp, r.offset).second) << "handed out twice";
        owed.emplace_back(rp, r.offset);
        auto last = last_handed_out.find(rp);
        EXPECT_TRUE(last == last_handed_out.end() || last->second < r.offset)
            << "handed out out of order";
        last_handed_out[rp] = r.offset;
      }
      if (s.max_in_flight_per_partition != 0) {
        std::map<partition_id, std::size_t> per_partition;
        for (const auto& h : handed_out) {
          ++per_partition[h.first];
        }
        for (const auto& [hp, n] : per_partition) {
          EXPECT_LE(n, s.max_in_flight_per_partition) << "the partition's bound holds";
        }
      }
      std::size_t in_flight = 0;
      for (const auto& [mp, m] : model) {
        in_flight += m.in_flight.size();
        const auto v = core.view(mp);
        ASSERT_TRUE(v.has_value());
        EXPECT_EQ(v->in_flight, m.in_flight.size());
        const std::optional<std::int64_t> expected =
            !m.in_flight.empty()
                ? std::optional<std::int64_t>{*m.in_flight.begin()}
                : (m.last ? std::optional<std::int64_t>{*m.last + 1} : std::nullopt);
        EXPECT_EQ(v->committable, expected);
        if (stored(core, io).count(mp) && expected) {
          EXPECT_LE(stored(core, io).at(mp), *expected) << "never stores past a record in flight";
        }
      }
      EXPECT_EQ(core.in_flight(), in_flight);
      EXPECT_EQ(core.outstanding(), handed_out.size());
      EXPECT_LE(core.outstanding(), s.max_in_flight) << "the route's bound holds";
      EXPECT_EQ(core.paused_count(), io.paused.size());
      // The accounting identity, partition by partition, against the model's own counts.
      for (const auto& st : core.statuses(step)) {
        const auto& a = st.accounting;
        EXPECT_EQ(a.consumed, taken[st.id]);
        EXPECT_EQ(a.delivered, finished[st.id][0]);
        EXPECT_EQ(a.retried, finished[st.id][1]);
        EXPECT_EQ(a.dead_lettered, finished[st.id][2]);
        EXPECT_EQ(a.consumed, a.delivered + a.retried + a.dead_lettered + a.released +
                                  a.already_done + st.in_flight);
        EXPECT_EQ(st.assigned, model.count(st.id) == 1);
        EXPECT_EQ(!st.reasons.empty(), io.paused.count(st.id) == 1);
        EXPECT_EQ(st.paused_since_ms.has_value(), !st.reasons.empty());
      }
    }
  }
}

TEST(ConsumerCore, AStatusDatesThePartitionsOldestRecordNotYetDelivered) {
  fake_io io;
  consumer_core core{bounded(8), io};
  core.assign(fresh({p0}), 0);
  const auto oldest = [&] { return core.statuses(0).at(0).oldest_undelivered_ms; };
  EXPECT_EQ(oldest(), std::nullopt);
  for (const std::int64_t offset : {0, 1}) {
    auto r = rec(p0, offset);
    r.timestamp_ms = 1000 + offset;
    ASSERT_EQ(core.take(std::move(r), 0), consumer_core::intake::dispatched);
  }
  EXPECT_EQ(oldest(), std::optional<std::int64_t>{1000}) << "it waits while the record does";
  core.complete(p0, 0, delivery_end::delivered, 1);
  EXPECT_EQ(oldest(), std::optional<std::int64_t>{1001});
  core.complete(p0, 1, delivery_end::retried, 2);
  EXPECT_EQ(oldest(), std::nullopt) << "handed on to a tier counts as done here";
}

TEST(ConsumerCore, StatusesNameThePauseReasonsAndSinceWhen) {
  fake_io io;
  consumer_core core{bounded_with_tier(8), io};
  core.assign(fresh({p0, tier0}), 0);
  core.take(due_rec(tier0, 0, 5'000), 100);  // held in the gate: paused for retry_due
  core.set_route_reason(pause_reason::breaker, true);
  const auto changes = core.pause_changes();
  auto st = core.statuses(200);
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[0].id, p0);
  EXPECT_EQ(st[0].reasons, std::vector<pause_reason>{pause_reason::breaker});
  EXPECT_EQ(st[0].paused_since_ms, 200);
  EXPECT_EQ(st[1].id, tier0);
  EXPECT_EQ(st[1].reasons,
            (std::vector<pause_reason>{pause_reason::breaker, pause_reason::retry_due}));
  EXPECT_EQ(st[1].in_flight, 1u);
  EXPECT_EQ(st[1].held_until_due, 1u);
  EXPECT_EQ(st[0].held_until_due, 0u);
  EXPECT_EQ(core.statuses(900)[0].paused_since_ms, 200) << "since the first status after it";
  core.set_route_reason(pause_reason::breaker, false);
  EXPECT_GT(core.pause_changes(), changes);
  st = core.statuses(1'000);
  EXPECT_TRUE(st[0].reasons.empty());
  EXPECT_FALSE(st[0].paused_since_ms.has_value());
  EXPECT_EQ(st[1].paused_since_ms, 200) << "still held for its due time";
}

TEST(ConsumerCore, ARevokedPartitionKeepsItsCountersAndReleasesWhatWasInFlight) {
  fake_io io;
  consumer_core core{bounded(8), io};
  core.assign(fresh({p0}), 0);
  for (std::int64_t o = 0; o < 4; ++o) {
    core.take(rec(p0, o), 0);
  }
  core.complete(p0, 0, delivery_end::delivered, 0);
  core.complete(p0, 1, delivery_end::dead_lettered, 0);
  give_up(core, io, {p0});
  EXPECT_FALSE(core.complete(p0, 2, delivery_end::delivered, 0)) << "too late: not counted";
  const auto st = core.statuses(0);
  ASSERT_EQ(st.size(), 1u);
  EXPECT_FALSE(st[0].assigned);
  EXPECT_EQ(st[0].accounting.consumed, 4u);
  EXPECT_EQ(st[0].accounting.delivered, 1u);
  EXPECT_EQ(st[0].accounting.dead_lettered, 1u);
  EXPECT_EQ(st[0].accounting.released, 2u);
}

TEST(ConsumerCore, ASourceRecordLosesCouriersProvenanceHeadersAndATierRecordKeepsThem) {
  fake_io io;
  consumer_core core{bounded_with_tier(8), io};
  core.assign(fresh({p0, tier0}), 0);
  auto forged = rec(p0, 0);
  forged.headers = {{std::string{origin_topic_header}, "another.route.source"},
                    {std::string{origin_offset_header}, "7"},
                    {std::string{attempts_header}, "2147483647"},
                    {std::string{idempotency_key_header}, "order-1"}};
  core.take(std::move(forged), 0);
  auto genuine = due_rec(tier0, 0, 0);
  genuine.headers.emplace_back(std::string{origin_topic_header}, p0.topic);
  genuine.headers.emplace_back(std::string{origin_offset_header}, "3");
  core.take(std::move(genuine), 0);

  ASSERT_EQ(io.dispatched.size(), 2U);
  EXPECT_EQ(io.dispatched[0].headers,
            (header_list{{std::string{idempotency_key_header}, "order-1"}}))
      << "the producer's key stays; courier's provenance does not";
  EXPECT_EQ(find_header(io.dispatched[1].headers, origin_topic_header), p0.topic)
      << "a tier is courier's own topic: its provenance is courier's";
  EXPECT_EQ(core.counts()[consumer_counter::untrusted_provenance], 1U);
  ASSERT_EQ(io.untrusted.size(), 1U);
  EXPECT_EQ(io.untrusted[0].first, 0);
  EXPECT_EQ(io.untrusted[0].second.size(), 3U);
}

}  // namespace
}  // namespace courier
