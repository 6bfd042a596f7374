#include "core/log/event_sampler.hpp"

#include <gtest/gtest.h>

namespace courier::log {
namespace {

using namespace std::chrono_literals;
using clock = event_sampler::clock;

const clock::time_point t0{};

TEST(EventSampler, TheFirstNOfAWindowPassAndTheRestAreSuppressed) {
  event_sampler s{3, 10s};
  for (int i = 0; i < 3; ++i) {
    const auto v = s.admit("shipments", "record dead-lettered", t0 + std::chrono::seconds{i});
    EXPECT_TRUE(v.log) << i;
    EXPECT_EQ(v.suppressed, 0U) << i;
  }
  for (int i = 0; i < 5; ++i) {
    EXPECT_FALSE(s.admit("shipments", "record dead-lettered", t0 + 5s).log) << i;
  }
}

TEST(EventSampler, TheFirstEventOfTheNextWindowCarriesTheSuppressedCount) {
  event_sampler s{2, 10s};
  for (int i = 0; i < 7; ++i) {
    s.admit("r", "e", t0 + 1s);
  }
  EXPECT_FALSE(s.admit("r", "e", t0 + 9999ms).log);
  const auto next = s.admit("r", "e", t0 + 11s);
  EXPECT_TRUE(next.log);
  EXPECT_EQ(next.suppressed, 6U);
  EXPECT_EQ(s.admit("r", "e", t0 + 12s).suppressed, 0U) << "the count is carried once";
  EXPECT_FALSE(s.admit("r", "e", t0 + 13s).log) << "the new window has its own bound";
}

TEST(EventSampler, KeysHaveIndependentWindows) {
  event_sampler s{1, 10s};
  EXPECT_TRUE(s.admit("a", "record dead-lettered", t0).log);
  EXPECT_FALSE(s.admit("a", "record dead-lettered", t0).log);
  EXPECT_TRUE(s.admit("b", "record dead-lettered", t0).log) << "another route";
  EXPECT_TRUE(s.admit("a", "record moved to a retry tier", t0).log) << "another event";
  EXPECT_FALSE(s.admit("b", "record dead-lettered", t0 + 1s).log);
  const auto a = s.admit("a", "record dead-lettered", t0 + 10s);
  EXPECT_TRUE(a.log);
  EXPECT_EQ(a.suppressed, 1U);
}

TEST(EventSampler, ABurstFollowedBySilenceIsCountedByFlushOnceItsWindowEnded) {
  event_sampler s{2, 10s};
  EXPECT_TRUE(s.admit("r", "e", t0).log);
  EXPECT_TRUE(s.admit("r", "e", t0).log);
  const auto first = s.admit("r", "e", t0 + 1s);
  EXPECT_FALSE(first.log);
  EXPECT_TRUE(first.first_suppressed) << "the caller schedules a flush";
  EXPECT_FALSE(s.admit("r", "e", t0 + 2s).first_suppressed) << "one flush per burst";
  s.admit("other", "e", t0 + 1s);
  EXPECT_TRUE(s.flush(t0 + 9s).empty()) << "the window has not ended";
  const auto held = s.flush(t0 + 11s);
  ASSERT_EQ(held.size(), 1U);
  EXPECT_EQ(held[0].route, "r");
  EXPECT_EQ(held[0].event, "e");
  EXPECT_EQ(held[0].suppressed, 2U);
  EXPECT_TRUE(s.flush(t0 + 30s).empty()) << "counted once";
  EXPECT_EQ(s.admit("r", "e", t0 + 31s).suppressed, 0U) << "nor carried again";
}

TEST(EventSampler, ACountCarriedByALaterEventIsNotFlushedToo) {
  event_sampler s{1, 10s};
  s.admit("r", "e", t0);
  s.admit("r", "e", t0 + 1s);
  EXPECT_EQ(s.admit("r", "e", t0 + 10s).suppressed, 1U);
  EXPECT_TRUE(s.flush(t0 + 25s).empty());
}

TEST(EventSampler, AQuietKeyLogsEveryEvent) {
  event_sampler s{10, 10s};
  for (int i = 0; i < 100; ++i) {
    const auto v = s.admit("r", "e", t0 + std::chrono::seconds{2 * i});
    EXPECT_TRUE(v.log) << i;
    EXPECT_EQ(v.suppressed, 0U) << i;
  }
}

}  // namespace
}  // namespace courier::log
