#include "core/flow/head_of_line.hpp"

#include <gtest/gtest.h>

namespace courier {
namespace {

offset_tracker tracked(std::int64_t from, std::int64_t to) {
  offset_tracker t;
  for (auto o = from; o <= to; ++o) {
    EXPECT_EQ(t.track(o), offset_tracker::track_result::tracked);
  }
  return t;
}

TEST(HeadOfLine, StaysQuietWhileTheHeadHoldsBackNoMoreThanTheBound) {
  head_of_line_guard g{10};
  auto t = tracked(0, 9);  // 10 offsets from the head to the last taken
  for (std::int64_t o = 1; o <= 9; ++o) {
    t.complete(o);
  }
  EXPECT_FALSE(g.check(t, 0).has_value());
}

TEST(HeadOfLine, ReportsTheHeadOnceItHoldsBackMoreThanTheBound) {
  head_of_line_guard g{10};
  auto t = tracked(0, 10);  // 11 offsets: 0 is the head
  for (std::int64_t o = 1; o <= 10; ++o) {
    t.complete(o);
  }
  ASSERT_EQ(g.check(t, 0), std::optional<std::int64_t>{0});
  EXPECT_FALSE(g.check(t, 0).has_value()) << "once per head";
  ASSERT_EQ(t.track(11), offset_tracker::track_result::tracked);
  EXPECT_FALSE(g.check(t, 0).has_value()) << "still the same head";
}

TEST(HeadOfLine, ReportsTheNextHeadWhenItInTurnHoldsBack) {
  head_of_line_guard g{3};
  auto t = tracked(0, 5);
  ASSERT_EQ(g.check(t, 0), std::optional<std::int64_t>{0});
  t.complete(0);  // moved to a tier and acknowledged
  EXPECT_EQ(g.check(t, 0), std::optional<std::int64_t>{1}) << "offsets 1..5 are still 5 > 3";
  t.complete(1);
  t.complete(2);
  EXPECT_FALSE(g.check(t, 0).has_value()) << "3..5 is within the bound";
}

TEST(HeadOfLine, InFlightRecordsCountAsHeldBackToo) {
  head_of_line_guard g{4};
  const auto t = tracked(100, 104);  // nothing done yet: 5 offsets from the head
  EXPECT_EQ(g.check(t, 0), std::optional<std::int64_t>{100});
}

TEST(HeadOfLine, ZeroTurnsTheBoundOffAndAnEmptyPartitionHasNoHead) {
  head_of_line_guard off{0};
  EXPECT_FALSE(off.check(tracked(0, 100'000), 0).has_value());
  head_of_line_guard g{1};
  EXPECT_FALSE(g.check(offset_tracker{}, 0).has_value());
  auto t = tracked(0, 3);
  for (std::int64_t o = 0; o <= 3; ++o) {
    t.complete(o);
  }
  EXPECT_FALSE(g.check(t, 0).has_value());
}

TEST(HeadOfLine, ReportsAHeadThatHeldTheCommitPointForTheAgeBound) {
  head_of_line_guard g{0, 1000};  // no bound in records, 1 s in age
  auto t = tracked(0, 1);
  EXPECT_FALSE(g.check(t, 5000).has_value()) << "the head just took over";
  EXPECT_EQ(g.age_deadline_ms(), std::optional<std::int64_t>{6000});
  EXPECT_FALSE(g.check(t, 5999).has_value());
  EXPECT_EQ(g.check(t, 6000), std::optional<std::int64_t>{0});
  EXPECT_FALSE(g.check(t, 9000).has_value()) << "once per head";
  EXPECT_FALSE(g.age_deadline_ms().has_value()) << "reported: no deadline left";
}

TEST(HeadOfLine, TheAgeCountsFromWhenTheRecordBecameTheHead) {
  head_of_line_guard g{0, 1000};
  auto t = tracked(0, 1);
  EXPECT_FALSE(g.check(t, 0).has_value());
  t.complete(0);  // offset 1 becomes the head at 900 ms
  EXPECT_FALSE(g.check(t, 900).has_value());
  EXPECT_FALSE(g.check(t, 1500).has_value()) << "1 has been the head for 600 ms only";
  EXPECT_EQ(g.check(t, 1900), std::optional<std::int64_t>{1});
}

TEST(HeadOfLine, EitherBoundReportsAndAnEmptyPartitionHasNoDeadline) {
  head_of_line_guard g{3, 60'000};
  EXPECT_EQ(g.check(tracked(0, 3), 0), std::optional<std::int64_t>{0}) << "4 > 3 records";
  head_of_line_guard idle{0, 1000};
  EXPECT_FALSE(idle.check(offset_tracker{}, 0).has_value());
  EXPECT_FALSE(idle.age_deadline_ms().has_value());
}

}  // namespace
}  // namespace courier
