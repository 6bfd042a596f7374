#include "core/flow/fetch_starvation.hpp"

#include <gtest/gtest.h>

namespace courier {
namespace {

constexpr std::int64_t threshold = 512;

TEST(FetchStarvation, TheFirstSnapshotOnlyOpensAWindow) {
  fetch_starvation s{threshold};
  s.on_empty_poll(5'000);  // before any window: not counted
  EXPECT_FALSE(s.on_stats(0, 100'000));
  EXPECT_FALSE(s.on_stats(5'000, 100'000)) << "no empty poll in this window";
}

TEST(FetchStarvation, EmptyPollsForAQuarterOfAWindowWhileBehindAtBothEndsStarve) {
  fetch_starvation s{threshold};
  (void)s.on_stats(0, 90'000);
  for (int i = 0; i < 25; ++i) {
    s.on_empty_poll(50);  // 1,250 ms of 5,000
  }
  const auto v = s.on_stats(5'000, 80'000);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->window_ms, 5'000);
  EXPECT_EQ(v->starved_ms, 1'250);
  EXPECT_EQ(v->lag, 80'000) << "the lower of the two ends";
}

// After a breaker's Open the partitions resume and librdkafka fetches them anew: the polls that
// wait for that refetch are no small prefetch, however far behind the route is.
TEST(FetchStarvation, AWindowWithAResumeIsNoStall) {
  fetch_starvation s{threshold};
  (void)s.on_stats(0, 3'000);
  s.on_source_paused(1'000);  // resumed
  s.on_empty_poll(1'500);
  EXPECT_FALSE(s.on_stats(5'000, 2'900));
  for (int i = 0; i < 25; ++i) {
    s.on_empty_poll(50);
  }
  EXPECT_TRUE(s.on_stats(10'000, 2'800)) << "the next window is judged again";
}

TEST(FetchStarvation, AResumeJustBeforeAWindowExcusesItsRefetch) {
  fetch_starvation s{threshold};
  (void)s.on_stats(0, 3'000);
  s.on_source_paused(4'900);
  (void)s.on_stats(5'000, 3'000);
  s.on_empty_poll(1'250);
  EXPECT_FALSE(s.on_stats(10'000, 3'000)) << "its refetch spills into this window";
  s.on_empty_poll(1'250);
  EXPECT_TRUE(s.on_stats(15'000, 3'000));
}

TEST(FetchStarvation, LessThanTheShareIsNoStall) {
  fetch_starvation s{threshold};
  (void)s.on_stats(0, 90'000);
  s.on_empty_poll(1'249);
  EXPECT_FALSE(s.on_stats(5'000, 90'000));
}

TEST(FetchStarvation, TheEndOfABacklogIsNoStall) {
  // The polls came back empty because everything was fetched: the lag is gone at the window's
  // end.
  fetch_starvation s{threshold};
  (void)s.on_stats(0, 90'000);
  s.on_empty_poll(4'000);
  EXPECT_FALSE(s.on_stats(5'000, 300));
}

TEST(FetchStarvation, EmptyPollsWhileCaughtUpAreNoStall) {
  fetch_starvation s{threshold};
  (void)s.on_stats(0, 200);
  s.on_empty_poll(5'000);
  EXPECT_FALSE(s.on_stats(5'000, 250));
}

TEST(FetchStarvation, AnUnknownLagIsNoStall) {
  fetch_starvation s{threshold};
  (void)s.on_stats(0, -1);
  s.on_empty_poll(5'000);
  EXPECT_FALSE(s.on_stats(5'000, 90'000)) << "unknown at the window's start";
}

TEST(FetchStarvation, EachSnapshotStartsAFreshWindow) {
  fetch_starvation s{threshold};
  (void)s.on_stats(0, 90'000);
  s.on_empty_poll(3'000);
  EXPECT_TRUE(s.on_stats(5'000, 90'000));
  s.on_empty_poll(100);  // the previous window's waits are not carried over
  EXPECT_FALSE(s.on_stats(10'000, 90'000));
  s.on_empty_poll(2'000);
  EXPECT_TRUE(s.on_stats(15'000, 90'000));
}

TEST(FetchStarvation, StarvedTimeIsCappedAtTheWindow) {
  fetch_starvation s{threshold};
  (void)s.on_stats(0, 90'000);
  s.on_empty_poll(9'000);  // a poll that began in the previous window
  const auto v = s.on_stats(5'000, 90'000);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->starved_ms, 5'000);
}

}  // namespace
}  // namespace courier
