// The offset map in a commit's metadata: the codec, and the property that matters across owners:
// whatever a map says is done was done (completed by some owner), never a record still to
// deliver.

#include "core/flow/offset_map.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/crypto/base64.hpp"
#include "core/flow/offset_tracker.hpp"

namespace courier {
namespace {

done_offsets runs(std::initializer_list<std::pair<std::int64_t, std::int64_t>> rs) {
  done_offsets d;
  for (const auto& [b, e] : rs) {
    d.add(b, e);
  }
  return d;
}

TEST(DoneOffsets, MergesOverlappingAndAdjacentRuns) {
  auto d = runs({{10, 12}, {14, 16}});
  d.add(12, 14);
  EXPECT_EQ(d.runs(), (std::map<std::int64_t, std::int64_t>{{10, 16}}));
  d.add(5, 11);
  d.add(20, 21);
  d.add(15, 20);
  EXPECT_EQ(d.runs(), (std::map<std::int64_t, std::int64_t>{{5, 21}}));
  EXPECT_TRUE(d.contains(5));
  EXPECT_TRUE(d.contains(20));
  EXPECT_FALSE(d.contains(21));
  EXPECT_FALSE(d.contains(4));
  d.erase_below(7);
  EXPECT_EQ(d.runs(), (std::map<std::int64_t, std::int64_t>{{7, 21}}));
  EXPECT_EQ(d.offset_count(), 14U);
}

TEST(OffsetMap, RoundTripsRunsAboveTheCommitPoint) {
  const auto d = runs({{101, 105}, {107, 108}, {1'000'000, 1'000'500}});
  const auto text = encode_offset_map(100, d, default_offset_map_budget);
  EXPECT_EQ(text.rfind(offset_map_prefix, 0), 0U) << text;
  done_offsets back;
  ASSERT_EQ(decode_offset_map(text, 100, back), offset_map_read::read);
  EXPECT_EQ(back.runs(), d.runs());
}

TEST(OffsetMap, RemovingOneOffsetSplitsItsRun) {
  auto d = runs({{10, 15}});
  d.remove(12);
  EXPECT_EQ(d.runs(), (std::map<std::int64_t, std::int64_t>{{10, 12}, {13, 15}}));
  d.remove(10);
  d.remove(14);
  d.remove(20);
  EXPECT_EQ(d.runs(), (std::map<std::int64_t, std::int64_t>{{11, 12}, {13, 14}}));
}

// on_dead_letter park: the records behind a dead-lettered one travel after the map, so the
// partition's next owner sends them to the DLQ too.
TEST(OffsetMap, RoundTripsTheParkedRecordsBesideTheMap) {
  const auto done = runs({{101, 105}});
  const auto parked = runs({{106, 107}, {120, 121}});
  const auto text = encode_offset_map(100, done, default_offset_map_budget, parked);
  EXPECT_NE(text.find(parked_separator), std::string::npos) << text;
  done_offsets back;
  done_offsets back_parked;
  ASSERT_EQ(decode_offset_map(text, 100, back, &back_parked), offset_map_read::read) << text;
  EXPECT_EQ(back.runs(), done.runs());
  EXPECT_EQ(back_parked.runs(), parked.runs());

  const auto parked_only =
      encode_offset_map(100, done_offsets{}, default_offset_map_budget, parked);
  ASSERT_EQ(decode_offset_map(parked_only, 100, back, &back_parked), offset_map_read::read)
      << parked_only;
  EXPECT_TRUE(back.empty());
  EXPECT_EQ(back_parked.runs(), parked.runs());

  ASSERT_EQ(decode_offset_map(encode_offset_map(100, done, default_offset_map_budget), 100, back,
                              &back_parked),
            offset_map_read::read);
  EXPECT_TRUE(back_parked.empty()) << "no park: the map alone, in its first form";
}

TEST(OffsetMap, TheParkedRecordsTakeTheBudgetBeforeTheMap) {
  done_offsets done;
  done_offsets parked;
  for (std::int64_t o = 0; o < 200; ++o) {
    done.add(2 * o + 1, 2 * o + 2);  // 200 runs: 400 bytes raw
  }
  parked.add(500, 501);
  const std::size_t budget = 64;
  const auto text = encode_offset_map(0, done, budget, parked);
  ASSERT_LE(text.size(), budget);
  done_offsets back;
  done_offsets back_parked;
  ASSERT_EQ(decode_offset_map(text, 0, back, &back_parked), offset_map_read::read) << text;
  EXPECT_EQ(back_parked.runs(), parked.runs());
  EXPECT_FALSE(back.empty()) << "the rest of the budget holds the map's densest prefix";
  EXPECT_LT(back.run_count(), done.run_count());
  EXPECT_EQ(back.runs().begin()->first, 1);
}

TEST(OffsetMap, AParkedSectionThatIsNotOneIsMalformed) {
  done_offsets out;
  done_offsets parked;
  EXPECT_EQ(decode_offset_map("courier2:5:.", 5, out, &parked), offset_map_read::malformed);
  const auto map = encode_offset_map(5, runs({{6, 7}}), default_offset_map_budget);
  EXPECT_EQ(decode_offset_map(map + ".", 5, out, &parked), offset_map_read::malformed);
  EXPECT_EQ(decode_offset_map(map + ".not base64!", 5, out, &parked), offset_map_read::malformed);
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(parked.empty());
}

TEST(OffsetMap, LeavesOutWhatTheCommitPointCovers) {
  EXPECT_EQ(encode_offset_map(100, runs({{50, 90}}), default_offset_map_budget), "");
  done_offsets back;
  const auto text = encode_offset_map(100, runs({{90, 103}}), default_offset_map_budget);
  ASSERT_EQ(decode_offset_map(text, 100, back), offset_map_read::read);
  EXPECT_EQ(back.runs(), (std::map<std::int64_t, std::int64_t>{{100, 103}}));
}

TEST(OffsetMap, KeepsTheRunsNearestTheCommitPointWithinTheBudget) {
  done_offsets d;
  for (std::int64_t o = 1; o < 20'000; o += 2) {
    d.add(o, o + 1);  // every other offset: the worst case for run lengths
  }
  for (const std::size_t budget : {std::size_t{4096}, std::size_t{100}, std::size_t{15}}) {
    const auto text = encode_offset_map(0, d, budget);
    ASSERT_LE(text.size(), budget);
    done_offsets back;
    ASSERT_EQ(decode_offset_map(text, 0, back), offset_map_read::read) << budget;
    ASSERT_FALSE(back.empty());
    // A prefix: offsets 1, 3, 5 ... up to some point, none missing in between.
    std::int64_t expect = 1;
    for (const auto& [b, e] : back.runs()) {
      EXPECT_EQ(b, expect);
      EXPECT_EQ(e, b + 1);
      expect += 2;
    }
  }
  EXPECT_EQ(encode_offset_map(0, d, offset_map_prefix.size() + 2 + 3), "")
      << "not even one run fits";
}

TEST(OffsetMap, IgnoresMetadataThatIsNotAMap) {
  done_offsets out;
  EXPECT_EQ(decode_offset_map("", 5, out), offset_map_read::none);
  EXPECT_EQ(decode_offset_map("written by kafka-consumer-groups", 5, out),
            offset_map_read::foreign);
  EXPECT_EQ(decode_offset_map("courier2:5:not base64!", 5, out), offset_map_read::malformed);
  EXPECT_EQ(decode_offset_map("courier2:5:", 5, out), offset_map_read::malformed);
  // A base that is not an offset.
  EXPECT_EQ(decode_offset_map("courier2:", 5, out), offset_map_read::malformed);
  EXPECT_EQ(decode_offset_map("courier2:five:AQE=", 5, out), offset_map_read::malformed);
  EXPECT_EQ(decode_offset_map("courier2:-5:AQE=", -5, out), offset_map_read::malformed);
  EXPECT_EQ(decode_offset_map("courier2::AQE=", 5, out), offset_map_read::malformed);
  // A varint whose continuation bit runs off the end.
  EXPECT_EQ(decode_offset_map("courier2:5:" + base64_encode("\x01\x81"), 5, out),
            offset_map_read::malformed);
  // A zero-length run.
  EXPECT_EQ(decode_offset_map("courier2:5:" + base64_encode(std::string("\x01\x00", 2)), 5, out),
            offset_map_read::malformed);
  // Offsets past INT64_MAX.
  std::string huge;
  for (int i = 0; i < 8; ++i) {
    huge.push_back('\xff');
  }
  huge.push_back('\x7f');
  EXPECT_EQ(decode_offset_map("courier2:5:" + base64_encode(huge + huge), 5, out),
            offset_map_read::malformed);
  EXPECT_TRUE(out.empty());
}

TEST(OffsetMap, NamesTheOffsetItWasWrittenFor) {
  const auto text = encode_offset_map(100, runs({{101, 105}}), default_offset_map_budget);
  EXPECT_EQ(text.rfind("courier2:100:", 0), 0U) << text;
}

// A reset (kafka-consumer-groups --reset-offsets, or another client of the group committing
// another offset) may keep the metadata: re-based on the new offset, the map would name records
// nobody delivered as done. Read with any offset but its own, it says nothing.
TEST(OffsetMap, AMapCommittedWithAnotherOffsetThanItsOwnIsIgnored) {
  const auto done = runs({{101, 105}, {107, 108}});
  const auto parked = runs({{110, 111}});
  const auto text = encode_offset_map(100, done, default_offset_map_budget, parked);
  for (const std::int64_t committed : {0, 50, 99, 101, 104, 1'000}) {
    done_offsets back = runs({{1, 2}});
    done_offsets back_parked = runs({{1, 2}});
    EXPECT_EQ(decode_offset_map(text, committed, back, &back_parked), offset_map_read::other_base)
        << committed;
    EXPECT_TRUE(back.empty()) << committed;
    EXPECT_TRUE(back_parked.empty()) << committed;
  }
  done_offsets back;
  EXPECT_EQ(decode_offset_map(text, 100, back), offset_map_read::read);
  EXPECT_EQ(back.runs(), done.runs());
}

// The form before the base was written ("courier1:<map>") cannot be checked against the
// committed offset: it is never read.
TEST(OffsetMap, AMapWithoutABaseIsIgnored) {
  done_offsets out;
  EXPECT_EQ(decode_offset_map("courier1:" + base64_encode(std::string("\x01\x04", 2)), 100, out),
            offset_map_read::other_base);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(decode_offset_map("courier1:not base64!", 100, out), offset_map_read::other_base);
}

// Owners hand a partition over through commits, as Kafka does: each starts at the committed
// offset with the map committed beside it, fetches in order (with gaps, as compaction leaves),
// completes records in any order, commits now and then, and may lose the partition at any point
// with records in flight (those are delivered again by the next owner), or be reset to an earlier
// offset with the metadata kept. Whatever a decoded map
// says is done must have been completed by an owner; no record is ever skipped that nobody
// completed, and each one is completed by at least one owner.
TEST(OffsetMap, NeverSaysDoneForARecordNobodyCompleted) {
  for (std::uint64_t seed = 1; seed <= 500; ++seed) {
    std::mt19937_64 rng{seed};
    // The partition's records: offsets with gaps.
    std::vector<std::int64_t> log;
    std::int64_t o = 0;
    for (int i = 0; i < 400; ++i) {
      o += 1 + (rng() % 5 == 0 ? static_cast<std::int64_t>(rng() % 4) : 0);
      log.push_back(o);
    }
    const std::set<std::int64_t> records{log.begin(), log.end()};
    std::set<std::int64_t> completed;
    std::int64_t committed = 0;
    std::string metadata;
    const std::size_t budget = rng() % 2 == 0 ? default_offset_map_budget : 40;
    for (int owner = 0; owner < 12 && committed <= log.back(); ++owner) {
      if (committed > 0 && rng() % 4 == 0) {
        // A reset to an earlier offset that keeps the metadata (kafka-consumer-groups
        // --reset-offsets, another client of the group).
        committed = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(committed));
      }
      done_offsets seed_runs;
      ASSERT_NE(decode_offset_map(metadata, committed, seed_runs), offset_map_read::malformed);
      for (const auto& [b, e] : seed_runs.runs()) {
        for (auto x = b; x < e; ++x) {
          if (records.count(x) != 0) {
            ASSERT_EQ(completed.count(x), 1U) << "seed " << seed << ": map says " << x << " done";
          }
        }
      }
      offset_tracker t;
      t.seed(seed_runs);
      std::vector<std::int64_t> pending;
      auto next = std::lower_bound(log.begin(), log.end(), committed);
      const int steps = 10 + static_cast<int>(rng() % 120);
      for (int step = 0; step < steps; ++step) {
        const auto dice = rng() % 10;
        if (dice < 5 && next != log.end()) {
          const auto got = t.track(*next);
          ASSERT_NE(got, offset_tracker::track_result::duplicate);
          if (got == offset_tracker::track_result::tracked) {
            pending.push_back(*next);
          } else {
            ASSERT_EQ(completed.count(*next), 1U) << "seed " << seed << " skipped " << *next;
          }
          ++next;
        } else if (dice < 9 && !pending.empty()) {
          const auto i = rng() % pending.size();
          completed.insert(pending[i]);
          ASSERT_TRUE(t.complete(pending[i]));
          pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
        } else if (const auto c = t.committable()) {
          committed = *c;
          metadata = encode_offset_map(committed, t.done_above_commit(), budget);
          ASSERT_LE(metadata.size(), budget);
        }
      }
      // Lost here: what is pending is the next owner's to deliver; the last commit stands.
    }
    // Every record below the final commit point was completed by somebody.
    for (const auto r : records) {
      if (r < committed) {
        ASSERT_EQ(completed.count(r), 1U) << "seed " << seed << " record " << r;
      }
    }
  }
}

}  // namespace
}  // namespace courier
