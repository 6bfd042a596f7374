#include "core/delivery/retry_budget.hpp"

#include <gtest/gtest.h>

namespace courier {
namespace {

using namespace std::chrono_literals;
const retry_budget::time_point t0{std::chrono::seconds{1'800'000'000}};

TEST(RetryBudget, RetriesAreAShareOfFirstAttempts) {
  retry_budget b{retry_budget_settings{0.2, 10s, 0}};
  EXPECT_FALSE(b.may_retry(t0));
  for (int i = 0; i < 10; ++i) {
    b.note_first(t0);
  }
  EXPECT_TRUE(b.may_retry(t0));
  b.note_retry(t0);
  EXPECT_TRUE(b.may_retry(t0));
  b.note_retry(t0);
  EXPECT_FALSE(b.may_retry(t0));  // 2 of 10 first attempts
}

TEST(RetryBudget, TheFloorIsPerSecondOfTheWindow) {
  retry_budget b{retry_budget_settings{0.2, 10s, 10}};
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(b.may_retry(t0)) << i;
    b.note_retry(t0);
  }
  EXPECT_FALSE(b.may_retry(t0));
}

TEST(RetryBudget, OldAttemptsLeaveTheWindow) {
  retry_budget b{retry_budget_settings{1.0, 10s, 0}};
  b.note_first(t0);
  b.note_retry(t0);
  EXPECT_FALSE(b.may_retry(t0 + 9s));
  EXPECT_EQ(b.firsts(t0 + 9900ms), 1U);
  // Ten seconds on, both are gone: no first attempt to retry against.
  EXPECT_EQ(b.firsts(t0 + 10s), 0U);
  EXPECT_EQ(b.retries(t0 + 10s), 0U);
  b.note_first(t0 + 10s);
  EXPECT_TRUE(b.may_retry(t0 + 10s));
}

TEST(RetryBudget, ALongSilenceClearsEverything) {
  retry_budget b{retry_budget_settings{0.5, 10s, 0}};
  for (int i = 0; i < 50; ++i) {
    b.note_first(t0 + std::chrono::milliseconds{i * 100});
    b.note_retry(t0 + std::chrono::milliseconds{i * 100});
  }
  EXPECT_EQ(b.firsts(t0 + 1h), 0U);
  EXPECT_EQ(b.retries(t0 + 1h), 0U);
}

TEST(RetryBudget, AClockGoingBackCountsInTheNewestSlice) {
  retry_budget b{retry_budget_settings{1.0, 10s, 0}};
  b.note_first(t0);
  b.note_first(t0 - 1h);
  EXPECT_EQ(b.firsts(t0), 2U);
}

}  // namespace
}  // namespace courier
