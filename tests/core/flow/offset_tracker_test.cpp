#include "core/flow/offset_tracker.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <vector>

namespace courier {
namespace {

TEST(OffsetTracker, HasNothingToCommitBeforeTheFirstRecord) {
  const offset_tracker t;
  EXPECT_EQ(t.committable(), std::nullopt);
  EXPECT_EQ(t.in_flight(), 0U);
  EXPECT_EQ(t.last_tracked(), std::nullopt);
}

TEST(OffsetTracker, CommitsNothingPastARecordInFlight) {
  offset_tracker t;
  ASSERT_EQ(t.track(10), offset_tracker::track_result::tracked);
  EXPECT_EQ(t.committable(), 10);
  EXPECT_EQ(t.in_flight(), 1U);
}

TEST(OffsetTracker, CommitsTheNextOffsetToReadWhenAllAreDone) {
  offset_tracker t;
  ASSERT_EQ(t.track(10), offset_tracker::track_result::tracked);
  ASSERT_EQ(t.track(11), offset_tracker::track_result::tracked);
  EXPECT_TRUE(t.complete(10));
  EXPECT_TRUE(t.complete(11));
  EXPECT_EQ(t.committable(), 12);
  EXPECT_EQ(t.in_flight(), 0U);
}

TEST(OffsetTracker, WaitsForTheLowestRecordWhenLaterOnesFinishFirst) {
  offset_tracker t;
  for (std::int64_t o = 0; o < 5; ++o) {
    ASSERT_EQ(t.track(o), offset_tracker::track_result::tracked);
  }
  EXPECT_TRUE(t.complete(4));
  EXPECT_TRUE(t.complete(2));
  EXPECT_TRUE(t.complete(1));
  EXPECT_EQ(t.committable(), 0);
  EXPECT_TRUE(t.complete(0));
  EXPECT_EQ(t.committable(), 3);
  EXPECT_TRUE(t.complete(3));
  EXPECT_EQ(t.committable(), 5);
}

TEST(OffsetTracker, SkipsGapsLeftByCompactionAndTransactionMarkers) {
  offset_tracker t;
  ASSERT_EQ(t.track(3), offset_tracker::track_result::tracked);
  ASSERT_EQ(t.track(7), offset_tracker::track_result::tracked);
  ASSERT_EQ(t.track(20), offset_tracker::track_result::tracked);
  EXPECT_TRUE(t.complete(3));
  EXPECT_EQ(t.committable(), 7);
  EXPECT_TRUE(t.complete(20));
  EXPECT_EQ(t.committable(), 7);
  EXPECT_TRUE(t.complete(7));
  EXPECT_EQ(t.committable(), 21);
}

TEST(OffsetTracker, IgnoresADuplicateComplete) {
  offset_tracker t;
  ASSERT_EQ(t.track(1), offset_tracker::track_result::tracked);
  ASSERT_EQ(t.track(2), offset_tracker::track_result::tracked);
  EXPECT_TRUE(t.complete(1));
  EXPECT_FALSE(t.complete(1));
  EXPECT_EQ(t.in_flight(), 1U);
  EXPECT_EQ(t.committable(), 2);
}

TEST(OffsetTracker, IgnoresACompleteBeforeTrack) {
  offset_tracker t;
  EXPECT_FALSE(t.complete(5));
  EXPECT_EQ(t.committable(), std::nullopt);
  ASSERT_EQ(t.track(5), offset_tracker::track_result::tracked);
  EXPECT_EQ(t.in_flight(), 1U);
  EXPECT_EQ(t.committable(), 5);
}

TEST(OffsetTracker, IgnoresCompletesOfOffsetsInAGap) {
  offset_tracker t;
  ASSERT_EQ(t.track(3), offset_tracker::track_result::tracked);
  ASSERT_EQ(t.track(7), offset_tracker::track_result::tracked);
  EXPECT_FALSE(t.complete(5));
  EXPECT_FALSE(t.complete(8));
  EXPECT_EQ(t.in_flight(), 2U);
  EXPECT_EQ(t.committable(), 3);
}

TEST(OffsetTracker, IgnoresAnOffsetTrackedAgainSoTheCommitNeverGoesBack) {
  offset_tracker t;
  ASSERT_EQ(t.track(1), offset_tracker::track_result::tracked);
  ASSERT_EQ(t.track(2), offset_tracker::track_result::tracked);
  EXPECT_TRUE(t.complete(1));
  EXPECT_EQ(t.track(1), offset_tracker::track_result::duplicate)
      << "done already: the caller drops the rewound copy";
  EXPECT_EQ(t.track(2), offset_tracker::track_result::duplicate)
      << "still in flight: the caller drops the second copy";
  EXPECT_EQ(t.in_flight(), 1U);
  EXPECT_EQ(t.committable(), 2);
  EXPECT_TRUE(t.complete(2));
  EXPECT_EQ(t.committable(), 3);
  EXPECT_EQ(t.last_tracked(), 2);
}

// The simple model: every tracked offset with whether it is done.
struct model {
  std::map<std::int64_t, bool> done;

  std::optional<std::int64_t> committable() const {
    if (done.empty()) {
      return std::nullopt;
    }
    for (const auto& [offset, finished] : done) {
      if (!finished) {
        return offset;
      }
    }
    return done.rbegin()->first + 1;
  }

  std::size_t in_flight() const {
    std::size_t n = 0;
    for (const auto& [offset, finished] : done) {
      n += finished ? 0 : 1;
    }
    return n;
  }
};

TEST(OffsetTracker, AgreesWithASimpleModelUnderRandomCompletionOrdersAndRewinds) {
  for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
    std::mt19937_64 rng{seed};
    offset_tracker t;
    model m;
    std::vector<std::int64_t> pending;
    std::int64_t next = static_cast<std::int64_t>(rng() % 1000);
    std::optional<std::int64_t> last_commit;
    const int steps = 20 + static_cast<int>(rng() % 60);
    for (int step = 0; step < steps; ++step) {
      const auto dice = rng() % 10;
      if (dice < 5) {
        // Gaps like compaction leaves behind.
        next += 1 + static_cast<std::int64_t>(rng() % 3 == 0 ? rng() % 5 : 0);
        ASSERT_EQ(t.track(next), offset_tracker::track_result::tracked) << "seed " << seed;
        m.done[next] = false;
        pending.push_back(next);
      } else if (dice == 5 && !m.done.empty()) {
        // A rewind: librdkafka hands out an offset again, in flight or done; nothing changes.
        const std::int64_t o = next - static_cast<std::int64_t>(rng() % 8);
        ASSERT_EQ(t.track(o), offset_tracker::track_result::duplicate)
            << "seed " << seed << " offset " << o;
      } else if (dice < 9 && !pending.empty()) {
        const auto i = rng() % pending.size();
        const std::int64_t o = pending[i];
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
        ASSERT_TRUE(t.complete(o)) << "seed " << seed;
        m.done[o] = true;
      } else {
        // A late duplicate, or an offset that was never handed out.
        const std::int64_t o = next - static_cast<std::int64_t>(rng() % 8);
        const auto it = m.done.find(o);
        const bool expect = it != m.done.end() && !it->second;
        ASSERT_EQ(t.complete(o), expect) << "seed " << seed << " offset " << o;
        if (expect) {
          it->second = true;
          pending.erase(std::find(pending.begin(), pending.end(), o));
        }
      }
      ASSERT_EQ(t.committable(), m.committable()) << "seed " << seed << " step " << step;
      ASSERT_EQ(t.in_flight(), m.in_flight()) << "seed " << seed << " step " << step;
      if (last_commit) {
        ASSERT_GE(t.committable(), last_commit) << "seed " << seed << " step " << step;
      }
      last_commit = t.committable();
    }
    // Draining everything commits past the last record.
    for (auto o : pending) {
      ASSERT_TRUE(t.complete(o));
    }
    if (!m.done.empty()) {
      EXPECT_EQ(t.committable(), m.done.rbegin()->first + 1) << "seed " << seed;
    }
    EXPECT_EQ(t.in_flight(), 0U);
  }
}

}  // namespace
}  // namespace courier

namespace courier {
namespace {

TEST(OffsetTracker, KnowsAnOffsetDoneWhenFinishedOrSeededAndNotWhileInFlightOrUnseen) {
  offset_tracker t;
  done_offsets seed;
  seed.add(20, 22);
  t.seed(seed);
  ASSERT_EQ(t.track(10), offset_tracker::track_result::tracked);
  ASSERT_EQ(t.track(12), offset_tracker::track_result::tracked);  // 11: a gap
  EXPECT_FALSE(t.known_done(10)) << "in flight";
  EXPECT_TRUE(t.known_done(11)) << "a gap below the last tracked is no record";
  ASSERT_TRUE(t.complete(10));
  EXPECT_TRUE(t.known_done(10));
  EXPECT_FALSE(t.known_done(15)) << "not fetched yet";
  EXPECT_TRUE(t.known_done(21)) << "seeded";
  EXPECT_FALSE(t.known_done(22));
}

}  // namespace
}  // namespace courier
