#include "core/delivery/backoff.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <limits>
#include <optional>

namespace courier {
namespace {

using std::chrono::milliseconds;

constexpr double just_below_one = 0.9999999999;

full_jitter_backoff constant(double u, backoff_policy policy = {}) {
  return full_jitter_backoff{policy, [u]() { return u; }};
}

TEST(Backoff, DefaultsMatchTheDesign) {
  const backoff_policy p;
  EXPECT_EQ(p.initial, milliseconds{200});
  EXPECT_DOUBLE_EQ(p.multiplier, 2.0);
  EXPECT_EQ(p.max, milliseconds{5000});
  EXPECT_EQ(p.max_attempts, 4);
  EXPECT_EQ(p.max_retry_after, milliseconds{30000});
}

TEST(Backoff, ALowestDrawWaitsNotAtAll) {
  const auto b = constant(0.0);
  for (int n = 1; n <= 10; ++n) {
    EXPECT_EQ(b.delay_after(n), milliseconds{0}) << n;
  }
}

TEST(Backoff, AHighestDrawWaitsTheExponentialCeiling) {
  const auto b = constant(just_below_one);
  EXPECT_EQ(b.delay_after(1), milliseconds{200});
  EXPECT_EQ(b.delay_after(2), milliseconds{400});
  EXPECT_EQ(b.delay_after(3), milliseconds{800});
  EXPECT_EQ(b.delay_after(4), milliseconds{1600});
  EXPECT_EQ(b.delay_after(5), milliseconds{3200});
}

TEST(Backoff, CeilingIsCappedAtMax) {
  const auto b = constant(just_below_one);
  EXPECT_EQ(b.delay_after(6), milliseconds{5000});
  EXPECT_EQ(b.delay_after(7), milliseconds{5000});
}

TEST(Backoff, HugeAttemptNumbersDoNotOverflow) {
  const auto b = constant(just_below_one);
  EXPECT_EQ(b.delay_after(64), milliseconds{5000});
  EXPECT_EQ(b.delay_after(2000), milliseconds{5000});
  EXPECT_EQ(b.delay_after(INT_MAX), milliseconds{5000});
}

TEST(Backoff, HugeMultiplierAndMaxDoNotOverflow) {
  backoff_policy p;
  p.multiplier = 1e300;
  p.max = milliseconds::max();
  const auto b = constant(just_below_one, p);
  EXPECT_EQ(b.delay_after(1), milliseconds{200});
  EXPECT_EQ(b.ceiling(3), milliseconds::max());
  EXPECT_EQ(b.ceiling(INT_MAX), milliseconds::max());
  // A double draw cannot resolve every millisecond near 2^63; it must stay positive and high.
  EXPECT_GT(b.delay_after(INT_MAX), milliseconds{milliseconds::max().count() / 2});
  EXPECT_EQ(constant(1.0, p).delay_after(INT_MAX), milliseconds::max());
}

TEST(Backoff, AttemptCountsBelowOneCountAsTheFirst) {
  const auto b = constant(just_below_one);
  EXPECT_EQ(b.delay_after(0), milliseconds{200});
  EXPECT_EQ(b.delay_after(-3), milliseconds{200});
}

TEST(Backoff, AMisbehavingSourceStaysWithinBounds) {
  EXPECT_EQ(constant(1.0).delay_after(1), milliseconds{200});
  EXPECT_EQ(constant(7.5).delay_after(1), milliseconds{200});
  EXPECT_EQ(constant(-1.0).delay_after(1), milliseconds{0});
  EXPECT_EQ(constant(std::numeric_limits<double>::quiet_NaN()).delay_after(1), milliseconds{0});
}

TEST(Backoff, JitterIsSpreadOverTheWholeRange) {
  const full_jitter_backoff b{backoff_policy{}, make_random_source(42)};
  milliseconds lowest = milliseconds::max();
  milliseconds highest{0};
  double sum = 0;
  constexpr int draws = 20000;
  for (int i = 0; i < draws; ++i) {
    const auto d = b.delay_after(3);
    ASSERT_GE(d, milliseconds{0});
    ASSERT_LE(d, milliseconds{800});
    lowest = std::min(lowest, d);
    highest = std::max(highest, d);
    sum += static_cast<double>(d.count());
  }
  EXPECT_LT(lowest, milliseconds{20});
  EXPECT_GT(highest, milliseconds{780});
  EXPECT_NEAR(sum / draws, 400.0, 15.0);
}

TEST(Backoff, RetryAfterLongerThanTheJitterWins) {
  const auto b = constant(0.0);
  EXPECT_EQ(b.delay_after(1, milliseconds{3000}), milliseconds{3000});
}

TEST(Backoff, RetryAfterIsClampedToMaxRetryAfter) {
  const auto b = constant(0.0);
  EXPECT_EQ(b.delay_after(1, milliseconds{60000}), milliseconds{30000});
  EXPECT_EQ(b.delay_after(1, milliseconds::max()), milliseconds{30000});
}

TEST(Backoff, RetryAfterShorterThanTheJitterIsNotAShortcut) {
  const auto b = constant(just_below_one);
  EXPECT_EQ(b.delay_after(4, milliseconds{100}), milliseconds{1600});
  EXPECT_EQ(b.delay_after(4, milliseconds{0}), milliseconds{1600});
  EXPECT_EQ(b.delay_after(4, milliseconds{-500}), milliseconds{1600});
}

TEST(Backoff, WithoutRetryAfterTheJitterIsUsed) {
  const auto b = constant(just_below_one);
  EXPECT_EQ(b.delay_after(2, std::nullopt), milliseconds{400});
}

TEST(Backoff, MayRetryUntilMaxAttemptsWereMade) {
  const auto b = constant(0.0);
  EXPECT_TRUE(b.may_retry(0));
  EXPECT_TRUE(b.may_retry(1));
  EXPECT_TRUE(b.may_retry(3));
  EXPECT_FALSE(b.may_retry(4));
  EXPECT_FALSE(b.may_retry(5));
}

TEST(Backoff, ExposesItsPolicy) {
  backoff_policy p;
  p.initial = milliseconds{50};
  p.max_attempts = 9;
  const auto b = constant(0.0, p);
  EXPECT_EQ(b.policy().initial, milliseconds{50});
  EXPECT_EQ(b.policy().max_attempts, 9);
}

TEST(Backoff, RandomSourceIsReproducibleForASeed) {
  auto a = make_random_source(7);
  auto b = make_random_source(7);
  auto c = make_random_source(8);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const double x = a();
    EXPECT_EQ(x, b());
    differs = differs || (x != c());
  }
  EXPECT_TRUE(differs);
}

TEST(Backoff, RandomSourceStaysInTheHalfOpenUnitInterval) {
  auto u = make_random_source(1234);
  for (int i = 0; i < 100000; ++i) {
    const double x = u();
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
  }
}

}  // namespace
}  // namespace courier
