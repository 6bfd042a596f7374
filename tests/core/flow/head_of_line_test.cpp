#include "core/flow/head_of_line.hpp"

#include <gtest/gtest.h>

namespace courier {
namespace {

offset_tracker tracked(std::int64_t from, std::int64_t to) {
  offset_tracker t;
  for (auto o = from; o <= to; ++o) {
    EXPECT_TRUE(t.track(o));
  }
  return t;
}

TEST(HeadOfLine, StaysQuietWhileTheHeadHoldsBackNoMoreThanTheBound) {
  head_of_line_guard g{10};
  auto t = tracked(0, 9);  // 10 offsets from the head to the last taken
  for (std::int64_t o = 1; o <= 9; ++o) {
    t.complete(o);
  }
  EXPECT_FALSE(g.check(t).has_value());
}

TEST(HeadOfLine, ReportsTheHeadOnceItHoldsBackMoreThanTheBound) {
  head_of_line_guard g{10};
  auto t = tracked(0, 10);  // 11 offsets: 0 is the head
  for (std::int64_t o = 1; o <= 10; ++o) {
    t.complete(o);
  }
  ASSERT_EQ(g.check(t), std::optional<std::int64_t>{0});
  EXPECT_FALSE(g.check(t).has_value()) << "once per head";
  ASSERT_TRUE(t.track(11));
  EXPECT_FALSE(g.check(t).has_value()) << "still the same head";
}

TEST(HeadOfLine, ReportsTheNextHeadWhenItInTurnHoldsBack) {
  head_of_line_guard g{3};
  auto t = tracked(0, 5);
  ASSERT_EQ(g.check(t), std::optional<std::int64_t>{0});
  t.complete(0);  // moved to a tier and acknowledged
  EXPECT_EQ(g.check(t), std::optional<std::int64_t>{1}) << "offsets 1..5 are still 5 > 3";
  t.complete(1);
  t.complete(2);
  EXPECT_FALSE(g.check(t).has_value()) << "3..5 is within the bound";
}

TEST(HeadOfLine, InFlightRecordsCountAsHeldBackToo) {
  head_of_line_guard g{4};
  const auto t = tracked(100, 104);  // nothing done yet: 5 offsets from the head
  EXPECT_EQ(g.check(t), std::optional<std::int64_t>{100});
}

TEST(HeadOfLine, ZeroTurnsTheBoundOffAndAnEmptyPartitionHasNoHead) {
  head_of_line_guard off{0};
  EXPECT_FALSE(off.check(tracked(0, 100'000)).has_value());
  head_of_line_guard g{1};
  EXPECT_FALSE(g.check(offset_tracker{}).has_value());
  auto t = tracked(0, 3);
  for (std::int64_t o = 0; o <= 3; ++o) {
    t.complete(o);
  }
  EXPECT_FALSE(g.check(t).has_value());
}

}  // namespace
}  // namespace courier
