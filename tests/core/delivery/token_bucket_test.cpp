#include "core/delivery/token_bucket.hpp"

#include <gtest/gtest.h>

namespace courier {
namespace {

using namespace std::chrono_literals;
const token_bucket::time_point t0{std::chrono::seconds{1'800'000'000}};

TEST(TokenBucket, StartsFullAndRefillsAtItsRate) {
  token_bucket b{rate_limit_settings{50, 100}, t0};
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(b.try_take(t0)) << i;
  }
  EXPECT_FALSE(b.try_take(t0));
  EXPECT_EQ(b.until_next(t0), 20ms);
  EXPECT_FALSE(b.try_take(t0 + 19ms));
  EXPECT_TRUE(b.try_take(t0 + 20ms));
}

TEST(TokenBucket, SavesNoMoreThanItsBurst) {
  token_bucket b{rate_limit_settings{10, 2}, t0};
  EXPECT_TRUE(b.try_take(t0));
  EXPECT_TRUE(b.try_take(t0));
  // An hour idle earns two tokens, not 36,000.
  EXPECT_TRUE(b.try_take(t0 + 1h));
  EXPECT_TRUE(b.try_take(t0 + 1h));
  EXPECT_FALSE(b.try_take(t0 + 1h));
}

TEST(TokenBucket, OverASecondItGivesItsRatePlusTheBurst) {
  token_bucket b{rate_limit_settings{200, 200}, t0};
  int taken = 0;
  for (auto t = t0; t < t0 + 1s; t += 1ms) {
    while (b.try_take(t)) {
      ++taken;
    }
  }
  EXPECT_EQ(taken, 200 + 199);  // the burst, then 200/s for 999 ms
}

TEST(TokenBucket, AClockGoingBackEarnsNothing) {
  token_bucket b{rate_limit_settings{1, 1}, t0};
  EXPECT_TRUE(b.try_take(t0));
  EXPECT_FALSE(b.try_take(t0 - 10s));
  EXPECT_FALSE(b.try_take(t0 + 990ms));
  EXPECT_TRUE(b.try_take(t0 + 1s));
}

TEST(TokenBucket, ANewRateKeepsWhatWasEarnedCappedAtTheNewBurst) {
  token_bucket b{rate_limit_settings{100, 100}, t0};
  b.set_rate(rate_limit_settings{25, 25}, t0);
  int taken = 0;
  while (b.try_take(t0)) {
    ++taken;
  }
  EXPECT_EQ(taken, 25);
  EXPECT_EQ(b.until_next(t0), 40ms);
}

TEST(TokenBucket, BurstDefaultsToOneSecondOfRequestsAndIsNeverBelowOne) {
  EXPECT_EQ((rate_limit_settings{50, 0}).effective_burst(), 50);
  EXPECT_EQ((rate_limit_settings{50, 7}).effective_burst(), 7);
  EXPECT_EQ((rate_limit_settings{0.5, 0}).effective_burst(), 1);
}

TEST(QuotaShare, IsTheAssignedPartitionsShareOfTheTopic) {
  EXPECT_DOUBLE_EQ(quota_share(2, 8), 0.25);
  EXPECT_DOUBLE_EQ(quota_share(8, 8), 1.0);
  EXPECT_DOUBLE_EQ(quota_share(0, 8), 1.0);  // unknown: the whole quota
  EXPECT_DOUBLE_EQ(quota_share(3, 0), 1.0);
  EXPECT_DOUBLE_EQ(quota_share(9, 8), 1.0);  // the topic grew since it was counted
}

}  // namespace
}  // namespace courier
