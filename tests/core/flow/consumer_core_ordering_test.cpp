#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include "core/flow/consumer_core.hpp"
#include "core/retry/retry_headers.hpp"
#include "tests/core/flow/consumer_core_fakes.hpp"

// The consumer core with routes[].ordering "key": a record with a key goes out only once every
// earlier record of its key in its source partition was delivered or dead-lettered.
namespace courier {
namespace {

using testing::bounded_with_tier;
using testing::fake_io;
using testing::fresh;
using testing::offsets_of;
using testing::p0;
using testing::p1;
using testing::rec;
using testing::tier0;

consumer_core_settings ordered(std::size_t max_in_flight = 16) {
  auto s = bounded_with_tier(max_in_flight);
  s.ordering.mode = ordering_mode::key;
  return s;
}

record keyed(const partition_id& p, std::int64_t offset, const std::string& key) {
  auto r = rec(p, offset);
  r.key = key;
  return r;
}

// The copy a move to the tier writes of p0's record at `origin`, due at `due_ms`.
record tier_copy(std::int64_t tier_offset, std::int64_t origin, const std::string& key,
                 std::int64_t due_ms) {
  auto r = keyed(tier0, tier_offset, key);
  r.headers = {{std::string{origin_topic_header}, p0.topic},
               {std::string{origin_partition_header}, std::to_string(p0.partition)},
               {std::string{origin_offset_header}, std::to_string(origin)},
               {"courier.retry.due", std::to_string(due_ms)}};
  return r;
}

std::optional<consumer_core::partition_status> status_of(consumer_core& core, const partition_id& p,
                                                         std::int64_t now_ms) {
  for (auto& s : core.statuses(now_ms)) {
    if (s.id == p) {
      return s;
    }
  }
  return std::nullopt;
}

TEST(ConsumerCoreOrdering, AKeysLaterRecordWaitsForItsEarlierOneWhileOtherKeysGo) {
  fake_io io;
  consumer_core core{ordered(), io};
  core.assign(fresh({p0, tier0}), 0);
  EXPECT_EQ(core.take(keyed(p0, 0, "42"), 0), consumer_core::intake::dispatched);
  EXPECT_EQ(core.take(keyed(p0, 1, "42"), 0), consumer_core::intake::followed);
  EXPECT_EQ(core.take(keyed(p0, 2, "7"), 0), consumer_core::intake::dispatched);
  EXPECT_EQ(core.take(rec(p0, 3), 0), consumer_core::intake::dispatched) << "no key: unordered";
  EXPECT_EQ(offsets_of(io.dispatched, p0), (std::vector<std::int64_t>{0, 2, 3}));
  EXPECT_EQ(core.in_flight(), 4U);
  EXPECT_EQ(core.outstanding(), 3U) << "the follower is held here, not with the pool";

  ASSERT_TRUE(core.complete(p0, 0, delivery_end::delivered, 10));
  EXPECT_EQ(offsets_of(io.dispatched, p0), (std::vector<std::int64_t>{0, 2, 3, 1}));
  EXPECT_EQ(core.outstanding(), 3U);
}

// A dead-lettered record's DLQ record names the later records of its key waiting behind it; with
// on_dead_letter "release" they are delivered after it.
TEST(ConsumerCoreOrdering, ADeadLetteredRecordNamesItsFollowersAndReleasesThem) {
  fake_io io;
  consumer_core core{ordered(), io};
  core.assign(fresh({p0, tier0}), 0);
  for (std::int64_t o = 0; o < 3; ++o) {
    core.take(keyed(p0, o, "42"), 0);
  }
  core.take(keyed(p0, 3, "7"), 0);
  EXPECT_EQ(core.later_of_key(record_position{p0.topic, p0.partition, 0}),
            (std::vector<std::int64_t>{1, 2}));
  EXPECT_TRUE(core.later_of_key(record_position{p0.topic, p0.partition, 3}).empty());
  EXPECT_TRUE(core.later_of_key(record_position{p0.topic, p0.partition, 99}).empty());
  ASSERT_TRUE(core.complete(p0, 0, delivery_end::dead_lettered, 10));
  EXPECT_EQ(offsets_of(io.dispatched, p0), (std::vector<std::int64_t>{0, 3, 1}));
  EXPECT_TRUE(io.dead_lettered.empty());
}

// With on_dead_letter "park", the followers go to the DLQ behind it, one after the other in
// offset order, unattempted; a record of the key taken after the last of them is attempted.
TEST(ConsumerCoreOrdering, WithParkTheFollowersGoToTheDlqBehindADeadLetteredRecordInOrder) {
  fake_io io;
  auto settings = ordered();
  settings.ordering.on_dead_letter = dead_letter_followers::park;
  consumer_core core{settings, io};
  core.assign(fresh({p0, tier0}), 0);
  for (std::int64_t o = 0; o < 3; ++o) {
    core.take(keyed(p0, o, "42"), 0);
  }
  core.take(keyed(p0, 3, "7"), 0);
  ASSERT_TRUE(core.complete(p0, 0, delivery_end::dead_lettered, 10));
  ASSERT_EQ(offsets_of(io.dead_lettered, p0), std::vector<std::int64_t>{1})
      << "the next follower only: the one after it waits for its DLQ write";
  EXPECT_EQ(core.outstanding(), 2U) << "7's record and the one on its way to the DLQ";
  ASSERT_TRUE(core.complete(p0, 1, delivery_end::dead_lettered, 11));
  EXPECT_EQ(offsets_of(io.dead_lettered, p0), (std::vector<std::int64_t>{1, 2}));
  ASSERT_TRUE(core.complete(p0, 2, delivery_end::dead_lettered, 12));
  EXPECT_EQ(offsets_of(io.dispatched, p0), (std::vector<std::int64_t>{0, 3}))
      << "none of the key's records attempted behind the dead-lettered one";
  ASSERT_TRUE(core.complete(p0, 3, delivery_end::delivered, 13));
  std::int64_t committed = -1;
  for (const auto& c : core.commit_points(default_offset_map_budget, {p0})) {
    committed = c.offset;
  }
  EXPECT_EQ(committed, 4) << "the DLQ'd followers are done";

  core.take(keyed(p0, 4, "42"), 20);
  EXPECT_EQ(offsets_of(io.dispatched, p0), (std::vector<std::int64_t>{0, 3, 4}))
      << "the park ended with the last record it held";
}

// A SIGKILL or a rebalance in the middle of a park: the commit names the records behind the
// DLQ record, and the partition's next owner sends them to the DLQ before it delivers them.
TEST(ConsumerCoreOrdering, WithParkTheNextOwnerSendsTheParkedRecordsToTheDlqFromTheCommit) {
  auto settings = ordered();
  settings.ordering.on_dead_letter = dead_letter_followers::park;
  fake_io io;
  consumer_core core{settings, io};
  core.assign(fresh({p0, tier0}), 0);
  for (std::int64_t o = 0; o < 3; ++o) {
    core.take(keyed(p0, o, "42"), 0);
  }
  core.take(keyed(p0, 3, "7"), 0);
  ASSERT_TRUE(core.complete(p0, 0, delivery_end::dead_lettered, 10));
  ASSERT_EQ(offsets_of(io.dead_lettered, p0), std::vector<std::int64_t>{1});
  ASSERT_TRUE(core.complete(p0, 3, delivery_end::delivered, 11));
  // The process dies here, with 1 on its way to the DLQ and 2 behind it.
  const auto commits = core.commit_points(default_offset_map_budget, {p0});
  ASSERT_EQ(commits.size(), 1U);
  EXPECT_EQ(commits[0].offset, 1);
  done_offsets done;
  done_offsets parked;
  ASSERT_EQ(decode_offset_map(commits[0].metadata, 1, done, &parked), offset_map_read::read);
  EXPECT_EQ(parked.runs(), (std::map<std::int64_t, std::int64_t>{{1, 3}}));

  fake_io next_io;
  consumer_core next{settings, next_io};
  next.assign({assigned_partition{p0, commits[0].offset, commits[0].metadata},
               assigned_partition{tier0, std::nullopt, {}}},
              20);
  for (std::int64_t o = 1; o < 5; ++o) {
    next.take(keyed(p0, o, o == 4 ? "9" : (o == 3 ? "7" : "42")), 20);
  }
  EXPECT_EQ(offsets_of(next_io.dead_lettered, p0), std::vector<std::int64_t>{1});
  EXPECT_EQ(offsets_of(next_io.dispatched, p0), std::vector<std::int64_t>{4})
      << "3 was delivered (the map says so); 9's record goes";
  ASSERT_TRUE(next.complete(p0, 1, delivery_end::dead_lettered, 21));
  EXPECT_EQ(offsets_of(next_io.dead_lettered, p0), (std::vector<std::int64_t>{1, 2}));
  ASSERT_TRUE(next.complete(p0, 2, delivery_end::dead_lettered, 22));
  next.take(keyed(p0, 5, "42"), 23);
  EXPECT_EQ(offsets_of(next_io.dispatched, p0), (std::vector<std::int64_t>{4, 5}))
      << "the park ended with the records the commit named";

  // The same commit read by a route that releases followers: nothing parked.
  auto release = ordered();
  fake_io release_io;
  consumer_core released{release, release_io};
  released.assign({assigned_partition{p0, commits[0].offset, commits[0].metadata}}, 20);
  released.take(keyed(p0, 1, "42"), 20);
  EXPECT_EQ(offsets_of(release_io.dispatched, p0), std::vector<std::int64_t>{1});
  EXPECT_TRUE(release_io.dead_lettered.empty());
}

TEST(ConsumerCoreOrdering, WithoutOrderingAKeysRecordsGoTogether) {
  fake_io io;
  consumer_core core{bounded_with_tier(16), io};
  core.assign(fresh({p0}), 0);
  EXPECT_EQ(core.take(keyed(p0, 0, "42"), 0), consumer_core::intake::dispatched);
  EXPECT_EQ(core.take(keyed(p0, 1, "42"), 0), consumer_core::intake::dispatched);
}

TEST(ConsumerCoreOrdering, AKeyWhoseRecordMovedToATierWaitsUntilTheTiersCopyIsDelivered) {
  fake_io io;
  consumer_core core{ordered(), io};
  core.assign(fresh({p0, tier0}), 0);
  ASSERT_EQ(core.take(keyed(p0, 0, "42"), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(core.take(keyed(p0, 1, "42"), 0), consumer_core::intake::followed);
  ASSERT_TRUE(core.complete(p0, 0, delivery_end::retried, 100));
  EXPECT_EQ(offsets_of(io.dispatched, p0), std::vector<std::int64_t>{0}) << "moved, not delivered";
  const auto parked = status_of(core, p0, 200);
  ASSERT_TRUE(parked && parked->ordered);
  EXPECT_EQ(parked->parked_keys, 1U);
  EXPECT_EQ(parked->followers, 1U);
  EXPECT_EQ(parked->oldest_parked_since_ms, std::optional<std::int64_t>{100});
  EXPECT_EQ(parked->committable, std::optional<std::int64_t>{1}) << "the follower holds it";

  EXPECT_EQ(core.take(tier_copy(0, 0, "42", 5'100), 200), consumer_core::intake::gated);
  core.wake(tier0, 5'200);
  ASSERT_EQ(offsets_of(io.dispatched, tier0), std::vector<std::int64_t>{0});
  EXPECT_EQ(offsets_of(io.dispatched, p0), std::vector<std::int64_t>{0});
  ASSERT_TRUE(core.complete(tier0, 0, delivery_end::delivered, 5'300));
  EXPECT_EQ(offsets_of(io.dispatched, p0), (std::vector<std::int64_t>{0, 1}));
  const auto after = status_of(core, p0, 5'300);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->parked_keys, 0U);
  EXPECT_EQ(after->followers, 0U);
}

// The owner that takes a partition over learns its parked keys from the tiers' records.
TEST(ConsumerCoreOrdering, ATierRecordOfAKeyHoldsTheSourcesLaterRecordOfItWhileNotYetDue) {
  fake_io io;
  consumer_core core{ordered(), io};
  core.assign(fresh({p0, tier0}), 0);
  ASSERT_EQ(core.take(tier_copy(3, 5, "42", 30'000), 0), consumer_core::intake::gated);
  EXPECT_EQ(core.take(keyed(p0, 4, "42"), 0), consumer_core::intake::dispatched)
      << "an earlier record of the key than the tier's goes first";
  EXPECT_EQ(core.take(keyed(p0, 6, "42"), 0), consumer_core::intake::followed);
  EXPECT_EQ(core.take(keyed(p0, 7, "9"), 0), consumer_core::intake::dispatched);
}

TEST(ConsumerCoreOrdering, TooManyFollowersOfAKeyPauseItsSourcePartitionUntilThereAreFewer) {
  fake_io io;
  auto s = ordered();
  s.ordering.max_followers = 2;
  consumer_core core{s, io};
  core.assign(fresh({p0, p1, tier0}), 0);
  ASSERT_EQ(core.take(keyed(p0, 0, "42"), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(core.take(keyed(p0, 1, "42"), 0), consumer_core::intake::followed);
  EXPECT_EQ(io.paused.count(p0), 0U);
  ASSERT_EQ(core.take(keyed(p0, 2, "42"), 0), consumer_core::intake::followed);
  EXPECT_EQ(io.paused.count(p0), 1U);
  EXPECT_EQ(io.paused.count(p1), 0U) << "only the partition whose key waits";
  const auto paused = status_of(core, p0, 0);
  ASSERT_TRUE(paused);
  EXPECT_EQ(paused->reasons, std::vector<pause_reason>{pause_reason::ordering});

  ASSERT_TRUE(core.complete(p0, 0, delivery_end::delivered, 1));
  EXPECT_EQ(io.paused.count(p0), 0U);
}

TEST(ConsumerCoreOrdering, AFollowerHeadingItsPartitionIsNotMovedOnByTheHeadOfLineBound) {
  fake_io io;
  auto s = ordered();
  s.head_of_line_records = 3;
  consumer_core core{s, io};
  core.assign(fresh({p0, tier0}), 0);
  ASSERT_EQ(core.take(keyed(p0, 0, "42"), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(core.take(keyed(p0, 1, "42"), 0), consumer_core::intake::followed);
  ASSERT_TRUE(core.complete(p0, 0, delivery_end::retried, 1));  // 1 heads p0 now
  for (std::int64_t o = 2; o <= 8; ++o) {
    ASSERT_EQ(core.take(keyed(p0, o, "k" + std::to_string(o)), 2),
              consumer_core::intake::dispatched);
    ASSERT_TRUE(core.complete(p0, o, delivery_end::delivered, 3));
  }
  EXPECT_TRUE(io.expedited.empty()) << "nothing in the delivery pool to move on";
}

TEST(ConsumerCoreOrdering, ARevokedPartitionsFollowersAreLeftToItsNextOwner) {
  fake_io io;
  consumer_core core{ordered(), io};
  core.assign(fresh({p0, tier0}), 0);
  ASSERT_EQ(core.take(keyed(p0, 0, "42"), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(core.take(keyed(p0, 1, "42"), 0), consumer_core::intake::followed);
  core.begin_revoke({p0});
  EXPECT_EQ(core.outstanding_of({p0}), 1U) << "only what the pool has is drained";
  ASSERT_TRUE(core.complete(p0, 0, delivery_end::delivered, 1));
  EXPECT_EQ(offsets_of(io.dispatched, p0), std::vector<std::int64_t>{0})
      << "the follower is its next owner's";
  core.revoke({p0});
  EXPECT_EQ(core.in_flight(), 0U);
}

// A tier partition that goes elsewhere takes its records' order with it: a key that waited only
// for them goes on here (the group's range assignment keeps a source partition and its tiers'
// together, so this happens when both move).
TEST(ConsumerCoreOrdering, ARevokedTierPartitionReleasesTheKeysThatWaitedForItsRecords) {
  fake_io io;
  consumer_core core{ordered(), io};
  core.assign(fresh({p0, tier0}), 0);
  ASSERT_EQ(core.take(tier_copy(0, 0, "42", 30'000), 0), consumer_core::intake::gated);
  ASSERT_EQ(core.take(keyed(p0, 1, "42"), 0), consumer_core::intake::followed);
  core.revoke({tier0});
  EXPECT_EQ(offsets_of(io.dispatched, p0), std::vector<std::int64_t>{1});
}

// The ordered core through random outcomes, moves to the tier, rebalances and crashes, with the
// tier read at every assignment as the consumer actor's scan does: whenever a record with a key
// is handed out, every earlier record of its key in the source partition was delivered or
// dead-lettered; and in the end every record is.
class ordered_world {
 public:
  explicit ordered_world(std::uint32_t seed) : rng_(seed) {
    for (int o = 0; o < 60; ++o) {
      const auto k = pick(7);
      keys_.push_back(k < 5 ? std::optional<std::string>{"k" + std::to_string(k)} : std::nullopt);
    }
    start();
  }

  void run(int steps) {
    for (int i = 0; i < steps && !HasFailure(); ++i) {
      step();
    }
    failures_ = false;
    for (int i = 0; i < 100000 && !all_done() && !HasFailure(); ++i) {
      step();
    }
    EXPECT_TRUE(all_done()) << "not delivered: " << left();
    EXPECT_EQ(core_->in_flight(), 0U) << "held: nothing should wait any more";
  }

 private:
  static bool HasFailure() { return ::testing::Test::HasFailure(); }
  std::size_t pick(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>{0, n - 1}(rng_);
  }

  // A new owner (or the same after a rebalance): from the committed offsets, the tier read first.
  void start() {
    core_ = std::make_unique<consumer_core>(ordered(8), io_);
    seen_ = io_.dispatched.size();
    core_->assign({assigned_partition{p0, committed_[p0].offset, committed_[p0].metadata},
                   assigned_partition{tier0, committed_[tier0].offset, committed_[tier0].metadata}},
                  now_);
    for (auto t = static_cast<std::size_t>(committed_[tier0].offset); t < tier_.size(); ++t) {
      core_->enter_scanned(tier_record(t), now_);
    }
    pos_[p0] = committed_[p0].offset;
    pos_[tier0] = committed_[tier0].offset;
  }

  record tier_record(std::size_t t) const {
    const auto origin = tier_[t];
    auto r = tier_copy(static_cast<std::int64_t>(t), origin, "", 0);
    r.key = keys_[static_cast<std::size_t>(origin)];
    return r;
  }

  record source_record(std::int64_t o) const {
    auto r = rec(p0, o);
    r.key = keys_[static_cast<std::size_t>(o)];
    return r;
  }

  std::int64_t origin_of(const record& r) const {
    return r.topic == p0.topic ? r.offset : tier_[static_cast<std::size_t>(r.offset)];
  }

  void step() {
    ++now_;
    switch (pick(12)) {
      case 0:
      case 1:
      case 2:
        if (pos_[p0] < static_cast<std::int64_t>(keys_.size())) {
          (void)core_->take(source_record(pos_[p0]++), now_);
        }
        break;
      case 3:
      case 4:
        if (pos_[tier0] < static_cast<std::int64_t>(tier_.size())) {
          (void)core_->take(tier_record(static_cast<std::size_t>(pos_[tier0]++)), now_);
        }
        break;
      case 5:
      case 6:
      case 7:
      case 8:
        outcome();
        break;
      case 9:
        commit();
        break;
      case 10:
        if (failures_ && pick(4) == 0) {
          rebalance();
        }
        break;
      case 11:
        if (failures_ && pick(4) == 0) {
          crash();
        }
        break;
    }
    check_handed_out();
  }

  // Every record handed out since the last look: its key's earlier records are all finished.
  void check_handed_out() {
    for (; seen_ < io_.dispatched.size(); ++seen_) {
      const auto& r = io_.dispatched[seen_];
      owed_.emplace_back(partition_id{r.topic, r.partition}, r.offset, true);
      if (!r.key) {
        continue;
      }
      const auto o = origin_of(r);
      for (std::int64_t earlier = 0; earlier < o; ++earlier) {
        if (keys_[static_cast<std::size_t>(earlier)] == r.key) {
          ASSERT_EQ(done_.count(earlier), 1U)
              << "origin " << o << " of " << *r.key << " handed out before " << earlier;
        }
      }
    }
  }

  void outcome() {
    if (owed_.empty()) {
      return;
    }
    const auto i = pick(owed_.size());
    const auto [p, offset, current] = owed_[i];
    owed_[i] = owed_.back();
    owed_.pop_back();
    const auto origin = p == p0 ? offset : tier_[static_cast<std::size_t>(offset)];
    const auto roll = pick(10);
    delivery_end how = delivery_end::delivered;
    if (failures_ && roll < 3 && tier_.size() < 400) {
      how = delivery_end::retried;
      tier_.push_back(origin);
    } else if (failures_ && roll == 3) {
      how = delivery_end::dead_lettered;
      done_.insert(origin);
    } else {
      done_.insert(origin);
    }
    if (current) {
      (void)core_->complete(p, offset, how, now_);
    }
  }

  void commit() {
    for (const auto& c : core_->commit_points(default_offset_map_budget)) {
      committed_[c.partition] = c;
    }
  }

  void rebalance() {
    for (const auto& c : core_->commit_points(default_offset_map_budget, {p0, tier0})) {
      committed_[c.partition] = c;
    }
    core_->revoke({p0, tier0});
    for (auto& o : owed_) {
      std::get<2>(o) = false;  // the pool still finishes them; the core no longer counts them
    }
    start();
  }

  void crash() {
    for (const auto& [p, offset, current] : owed_) {
      if (pick(2) == 0) {  // delivered, the answer lost with the process
        done_.insert(p == p0 ? offset : tier_[static_cast<std::size_t>(offset)]);
      }
    }
    owed_.clear();
    start();
  }

  bool all_done() const { return done_.size() == keys_.size(); }
  std::string left() const {
    std::string out;
    for (std::int64_t o = 0; o < static_cast<std::int64_t>(keys_.size()); ++o) {
      if (done_.count(o) == 0) {
        out += std::to_string(o) + " ";
      }
    }
    return out;
  }

  std::mt19937 rng_;
  fake_io io_;
  std::unique_ptr<consumer_core> core_;
  std::vector<std::optional<std::string>> keys_;  // the source partition, by offset
  std::vector<std::int64_t> tier_;                // the tier partition: each copy's origin
  std::set<std::int64_t> done_;                   // delivered or dead-lettered
  std::map<partition_id, offset_commit> committed_{{p0, offset_commit{p0, 0, {}}},
                                                   {tier0, offset_commit{tier0, 0, {}}}};
  std::map<partition_id, std::int64_t> pos_;
  // Handed out and not finished: (partition, offset, still the current core's).
  std::vector<std::tuple<partition_id, std::int64_t, bool>> owed_;
  std::size_t seen_ = 0;
  std::int64_t now_ = 0;
  bool failures_ = true;
};

// A book is never erased: if any origin a tier record names made one, distinct made-up names
// (100 KB each) would grow memory until restart. Only the source's partitions have books.
TEST(ConsumerCoreOrdering, TenThousandDistinctOriginTopicNamesMakeNoMoreBooksThanSourcePartitions) {
  fake_io io;
  consumer_core core{ordered(20'000), io};
  core.assign(fresh({p0, p1, tier0}), 0);
  ASSERT_EQ(core.take(keyed(p0, 0, "42"), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(core.take(keyed(p1, 0, "42"), 0), consumer_core::intake::dispatched);
  for (std::int64_t i = 0; i < 10'000; ++i) {
    auto r = tier_copy(i, 0, "42", 0);
    r.headers[0].second = "forged-" + std::to_string(i) + std::string(100, 'x');
    EXPECT_EQ(core.take(std::move(r), 0), consumer_core::intake::dispatched)
        << "unordered: not behind 42's source record";
  }
  EXPECT_LE(core.order_book_count(), 2U);
  EXPECT_EQ(offsets_of(io.dispatched, tier0).size(), 10'000U);
}

// courier writes a record's tier copy to the partition of its origin's number: a tier record of
// partition 0 that names the source's partition 1 was not written by courier.
TEST(ConsumerCoreOrdering, ATierRecordNamingAnotherSourcePartitionGoesUnorderedWithNoBook) {
  fake_io io;
  consumer_core core{ordered(), io};
  core.assign(fresh({p0, tier0}), 0);
  auto r = tier_copy(0, 5, "42", 0);
  r.headers[1].second = "1";
  EXPECT_EQ(core.take(std::move(r), 0), consumer_core::intake::dispatched);
  auto unnamed = keyed(tier0, 1, "42");
  unnamed.headers = {{"courier.retry.due", "0"}};
  EXPECT_EQ(core.take(std::move(unnamed), 0), consumer_core::intake::dispatched)
      << "a tier record without an origin has no place in the source's order";
  EXPECT_EQ(core.order_book_count(), 0U);
  EXPECT_EQ(core.take(keyed(p0, 6, "42"), 0), consumer_core::intake::dispatched)
      << "the source's key is held behind neither";
  EXPECT_EQ(core.order_book_count(), 1U);
}

TEST(ConsumerCoreOrdering,
     NoRecordOfAKeyGoesOutBeforeTheEarlierOnesThroughMovesRebalancesAndCrashes) {
  for (std::uint32_t seed = 1; seed <= 150; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ordered_world{seed}.run(1500);
    if (HasFailure()) {
      return;
    }
  }
}

}  // namespace
}  // namespace courier
