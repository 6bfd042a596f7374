#include "core/flow/commit_failures.hpp"

#include <gtest/gtest.h>

// The log of a run of failed offset commits: a line when it starts, at most one per interval
// while it lasts, one when a commit is taken again.
namespace courier {
namespace {

using kind = commit_failures::line::kind;

TEST(CommitFailures, ARunTakesALineAtItsStartOnePerIntervalAndOneWhenItEnds) {
  commit_failures f{5000};
  EXPECT_FALSE(f.succeeded(0)) << "no run: a commit taken is not news";
  const auto start = f.failed(4, 1000);
  ASSERT_TRUE(start);
  EXPECT_EQ(start->what, kind::started);
  EXPECT_EQ(start->failed, 4U);
  EXPECT_TRUE(f.in_run());
  std::size_t lines = 0;
  for (std::int64_t t = 1100; t < 6000; t += 100) {  // 49 commits of 4 partitions in 4.9 s
    lines += f.failed(4, t) ? 1 : 0;
  }
  EXPECT_EQ(lines, 0U) << "within the interval: quiet";
  const auto next = f.failed(4, 6000);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->what, kind::continuing);
  EXPECT_EQ(next->failed, 50U * 4U) << "every partition's refusal since the first line";
  EXPECT_EQ(next->run_ms, 5000);
  EXPECT_FALSE(f.failed(2, 6500));

  const auto back = f.succeeded(7000);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->what, kind::recovered);
  EXPECT_EQ(back->failed, 4U + 49U * 4U + 4U + 2U) << "the whole run";
  EXPECT_EQ(back->run_ms, 6000);
  EXPECT_FALSE(f.in_run());
  EXPECT_FALSE(f.succeeded(7100));

  const auto again = f.failed(1, 8000);
  ASSERT_TRUE(again) << "a new run starts with a line";
  EXPECT_EQ(again->what, kind::started);
  EXPECT_EQ(again->failed, 1U);
}

}  // namespace
}  // namespace courier
