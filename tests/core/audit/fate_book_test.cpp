#include "core/audit/fate_book.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>

namespace courier {
namespace {

using runs = std::map<std::int64_t, std::int64_t>;

TEST(FateBook, EachRecordHasOneFateAndTheFatesAddUpToTheRecords) {
  fate_book book{100, 110, 108};
  for (std::int64_t o = 100; o < 110; ++o) {
    book.source_record(o);
  }
  book.receipt(100);
  book.receipt(101);
  book.waiting_in_tier(102);
  book.dead_lettered(103, 7, "http_4xx", false);
  book.dead_lettered(104, 8, "http_5xx", true);
  book.dead_lettered(105, 9, "http_4xx", false);
  // 106 and 107: named nowhere below the committed offset; 108 and 109: not processed yet.
  const auto f = book.tally();
  EXPECT_EQ(f.records, 10U);
  EXPECT_EQ(f.delivered, 2U);
  EXPECT_EQ(f.waiting, 1U);
  EXPECT_EQ(f.redriven, 1U);
  EXPECT_EQ(f.dead_lettered, (std::map<std::string, std::uint64_t>{{"http_4xx", 2}}));
  EXPECT_EQ(f.pending, 2U);
  EXPECT_EQ(f.unaccounted, 2U);
  EXPECT_EQ(f.unaccounted_offsets.runs(), (runs{{106, 108}}));
  EXPECT_EQ(f.records, f.delivered + f.waiting + f.redriven + f.dead_lettered_total() + f.pending +
                           f.unaccounted);
}

TEST(FateBook, AReceiptOutranksEveryOtherPlaceAndTheNewestDlqRecordDecides) {
  fate_book book{0, 4, 4};
  for (std::int64_t o = 0; o < 4; ++o) {
    book.source_record(o);
  }
  // 0: dead-lettered, redriven, delivered.
  book.dead_lettered(0, 1, "http_5xx", true);
  book.receipt(0);
  // 1: redriven, then dead-lettered again (the DLQ read out of order).
  book.dead_lettered(1, 9, "http_4xx", false);
  book.dead_lettered(1, 2, "http_5xx", true);
  // 2: in a tier (a copy past the tier's commit) and an older DLQ record of it, redriven.
  book.dead_lettered(2, 3, "timeout", true);
  book.waiting_in_tier(2);
  // 3: redriven, its copy not delivered yet.
  book.dead_lettered(3, 4, "refused", true);
  const auto f = book.tally();
  EXPECT_EQ(f.delivered, 1U);
  EXPECT_EQ(f.dead_lettered, (std::map<std::string, std::uint64_t>{{"http_4xx", 1}}));
  EXPECT_EQ(f.waiting, 1U);
  EXPECT_EQ(f.redriven, 1U);
  EXPECT_EQ(f.unaccounted, 0U);
}

TEST(FateBook, GapsInTheSourceAndNamesOutsideTheRangeAreNoRecords) {
  fate_book book{10, 20, std::nullopt};
  book.source_record(10);
  book.source_record(12);  // 11: compacted away
  book.source_record(25);  // past the range
  book.receipt(10);
  book.receipt(11);  // names no record
  book.receipt(30);  // another range's
  book.dead_lettered(9, 1, "http_4xx", false);
  const auto f = book.tally();
  EXPECT_EQ(f.records, 2U);
  EXPECT_EQ(f.delivered, 1U);
  EXPECT_EQ(f.pending, 1U) << "nothing committed: 12 is not processed for sure";
  EXPECT_EQ(f.unaccounted, 0U);
  EXPECT_EQ(f.receipts_without_record, 1U);
  EXPECT_TRUE(f.dead_lettered.empty());
}

// A range of a million records, nearly all delivered, stays a handful of runs: the book's memory
// grows with what went wrong, not with the range.
TEST(FateBook, AMillionRecordsAreAFewRuns) {
  constexpr std::int64_t n = 1'000'000;
  fate_book book{0, n, n};
  for (std::int64_t o = 0; o < n; ++o) {
    book.source_record(o);
    if (o != 500'000) {
      book.receipt(o);
    }
  }
  const auto f = book.tally();
  EXPECT_EQ(f.delivered, static_cast<std::uint64_t>(n - 1));
  EXPECT_EQ(f.unaccounted_offsets.runs(), (runs{{500'000, 500'001}}));
}

// Against a model that keeps every record's places one by one: the same fates, whatever the
// order the places are read in.
TEST(FateBookProperty, TheTallyMatchesAModelOfEachRecordsPlaces) {
  for (std::uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng{seed};
    auto pick = [&](int n) { return std::uniform_int_distribution<int>{0, n - 1}(rng); };
    const std::int64_t from = pick(50);
    const std::int64_t until = from + 1 + pick(200);
    const std::int64_t committed = from + pick(static_cast<int>(until - from) + 1);
    fate_book book{from, until, committed};
    std::set<std::int64_t> records;
    std::set<std::int64_t> receipts;
    std::set<std::int64_t> waiting;
    std::map<std::int64_t, std::pair<std::int64_t, std::pair<std::string, bool>>> newest;
    const char* classes[] = {"http_4xx", "http_5xx", "timeout"};
    for (std::int64_t o = from - 10; o < until + 10; ++o) {
      if (pick(10) != 0) {
        book.source_record(o);
        if (o >= from && o < until) {
          records.insert(o);
        }
      }
      const int r = pick(10);
      if (r < 5) {
        book.receipt(o);
        receipts.insert(o);
      } else if (r < 6) {
        book.waiting_in_tier(o);
        waiting.insert(o);
      }
      for (int k = pick(3); k > 0; --k) {
        const std::int64_t dlq_offset = pick(1000);
        const std::string klass = classes[pick(3)];
        const bool redriven = pick(2) == 0;
        book.dead_lettered(o, dlq_offset, klass, redriven);
        auto& n = newest[o];
        if (n.second.first.empty() || dlq_offset >= n.first) {
          n = {dlq_offset, {klass, redriven}};
        }
      }
    }
    fate_book::fates want;
    for (const auto o : records) {
      ++want.records;
      if (receipts.count(o) != 0) {
        ++want.delivered;
      } else if (waiting.count(o) != 0) {
        ++want.waiting;
      } else if (newest.count(o) != 0 && newest[o].second.second) {
        ++want.redriven;
      } else if (newest.count(o) != 0) {
        ++want.dead_lettered[newest[o].second.first];
      } else if (o >= committed) {
        ++want.pending;
      } else {
        ++want.unaccounted;
        want.unaccounted_offsets.add(o, o + 1);
      }
    }
    const auto got = book.tally();
    ASSERT_EQ(got.records, want.records);
    EXPECT_EQ(got.delivered, want.delivered);
    EXPECT_EQ(got.waiting, want.waiting);
    EXPECT_EQ(got.redriven, want.redriven);
    EXPECT_EQ(got.dead_lettered, want.dead_lettered);
    EXPECT_EQ(got.pending, want.pending);
    EXPECT_EQ(got.unaccounted, want.unaccounted);
    EXPECT_EQ(got.unaccounted_offsets.runs(), want.unaccounted_offsets.runs());
  }
}

}  // namespace
}  // namespace courier
