#include "core/auth/refresh_schedule.hpp"

#include <gtest/gtest.h>

namespace courier::auth {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(RefreshAfter, ATenthOfTheLifetimeBeforeItEnds) {
  EXPECT_EQ(refresh_after(seconds{3600}), milliseconds{3240000});
  EXPECT_EQ(refresh_after(seconds{300}), milliseconds{270000});
}

TEST(RefreshAfter, AtLeastFiveSecondsBeforeButNeverMoreThanHalfTheLifetime) {
  EXPECT_EQ(refresh_after(seconds{30}), milliseconds{25000});
  EXPECT_EQ(refresh_after(seconds{8}), milliseconds{4000});
  EXPECT_EQ(refresh_after(seconds{5}), milliseconds{2500});
}

TEST(RefreshAfter, NeverSoonerThanTheShortestRefresh) {
  EXPECT_EQ(refresh_after(seconds{1}), shortest_refresh);
  EXPECT_EQ(refresh_after(seconds{0}), shortest_refresh);
}

TEST(RefreshRetryAfter, DoublesFromOneSecondUpToThirty) {
  EXPECT_EQ(refresh_retry_after(1), milliseconds{1000});
  EXPECT_EQ(refresh_retry_after(2), milliseconds{2000});
  EXPECT_EQ(refresh_retry_after(5), milliseconds{16000});
  EXPECT_EQ(refresh_retry_after(6), milliseconds{30000});
  EXPECT_EQ(refresh_retry_after(1000), milliseconds{30000});
  EXPECT_EQ(refresh_retry_after(0), milliseconds{1000});
}

}  // namespace
}  // namespace courier::auth
