#include "core/flow/key_order.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace courier {
namespace {

const std::string source = "brew.shipments.v1";
const std::string tier_5s = "brew.shipments.v1.retry-5s";
const std::string tier_30s = "brew.shipments.v1.retry-30s";

record_position in_source(std::int64_t offset) { return {source, 3, offset}; }
record_position in_tier(const std::string& tier, std::int64_t offset) { return {tier, 3, offset}; }

TEST(KeyOrder, ALaterRecordOfAKeyFollowsAnEarlierOneInFlightAndOtherKeysDoNot) {
  key_order book{{}, source};
  book.enter("42", 10, in_source(10), 0);
  book.enter("42", 11, in_source(11), 0);
  book.enter("7", 12, in_source(12), 0);
  EXPECT_EQ(book.admit(in_source(10)), key_order::verdict::attempt);
  EXPECT_EQ(book.admit(in_source(11)), key_order::verdict::follow);
  EXPECT_EQ(book.admit(in_source(12)), key_order::verdict::attempt) << "another key flows";
  EXPECT_EQ(book.followers(), 1U);
  EXPECT_EQ(book.parked_keys(), 0U) << "in flight at the source is not parked";

  const auto released = book.finish(in_source(10), delivery_end::delivered, 5);
  ASSERT_EQ(released.size(), 1U);
  EXPECT_EQ(released[0].at, in_source(11));
  EXPECT_EQ(released[0].what, key_order::verdict::attempt);
  EXPECT_EQ(book.followers(), 0U);
}

TEST(KeyOrder, AKeyWhoseRecordMovedToATierIsParkedUntilItsCopyThereIsDelivered) {
  key_order book{{}, source};
  book.enter("42", 10, in_source(10), 0);
  book.enter("42", 11, in_source(11), 0);
  ASSERT_EQ(book.admit(in_source(10)), key_order::verdict::attempt);
  ASSERT_EQ(book.admit(in_source(11)), key_order::verdict::follow);

  EXPECT_TRUE(book.finish(in_source(10), delivery_end::retried, 100).empty())
      << "moved, not delivered: 11 keeps waiting";
  EXPECT_EQ(book.parked_keys(), 1U) << "in transit to the tier";
  EXPECT_EQ(book.oldest_parked_since_ms(), std::optional<std::int64_t>{100});
  book.enter("42", 10, in_tier(tier_5s, 0), 150);
  EXPECT_EQ(book.parked_keys(), 1U);
  EXPECT_EQ(book.oldest_parked_since_ms(), std::optional<std::int64_t>{100}) << "since the move";
  EXPECT_EQ(book.admit(in_tier(tier_5s, 0)), key_order::verdict::attempt);

  const auto released = book.finish(in_tier(tier_5s, 0), delivery_end::delivered, 5200);
  ASSERT_EQ(released.size(), 1U);
  EXPECT_EQ(released[0].at, in_source(11));
  EXPECT_EQ(book.parked_keys(), 0U);
  EXPECT_EQ(book.later_than("42", 10), std::vector<std::int64_t>{11});
}

TEST(KeyOrder, ADeadLetteredRecordReleasesItsFollowersAndTheDlqRecordCanNameThem) {
  key_order book{{}, source};
  for (std::int64_t o = 10; o <= 12; ++o) {
    book.enter("42", o, in_source(o), 0);
  }
  ASSERT_EQ(book.admit(in_source(10)), key_order::verdict::attempt);
  ASSERT_EQ(book.admit(in_source(11)), key_order::verdict::follow);
  ASSERT_EQ(book.admit(in_source(12)), key_order::verdict::follow);
  EXPECT_EQ(book.later_than("42", 10), (std::vector<std::int64_t>{11, 12}));

  const auto released = book.finish(in_source(10), delivery_end::dead_lettered, 1);
  ASSERT_EQ(released.size(), 1U) << "the next one only: 12 still follows 11";
  EXPECT_EQ(released[0].at, in_source(11));
  EXPECT_EQ(released[0].what, key_order::verdict::attempt);
}

TEST(KeyOrder, WithOnDeadLetterParkTheFollowersGoToTheDlqBehindIt) {
  key_order book{{ordering_mode::key, dead_letter_followers::park, 10000, 1000}, source};
  for (std::int64_t o = 10; o <= 11; ++o) {
    book.enter("42", o, in_source(o), 0);
  }
  ASSERT_EQ(book.admit(in_source(10)), key_order::verdict::attempt);
  ASSERT_EQ(book.admit(in_source(11)), key_order::verdict::follow);
  const auto released = book.finish(in_source(10), delivery_end::dead_lettered, 1);
  ASSERT_EQ(released.size(), 1U);
  EXPECT_EQ(released[0].what, key_order::verdict::dead_letter);
  book.enter("42", 12, in_source(12), 2);
  EXPECT_EQ(book.later_than(in_source(11)), std::vector<std::int64_t>{12});
  EXPECT_EQ(book.parked_keys(), 1U);
  ASSERT_TRUE(book.finish(in_source(11), delivery_end::dead_lettered, 2).empty());
  EXPECT_EQ(book.admit(in_source(12)), key_order::verdict::dead_letter)
      << "taken while the key's chain was pending: behind it in the DLQ";
  ASSERT_TRUE(book.finish(in_source(12), delivery_end::dead_lettered, 3).empty());
  EXPECT_EQ(book.parked_keys(), 0U) << "the chain ended with its last record";
  book.enter("42", 20, in_source(20), 4);
  EXPECT_EQ(book.admit(in_source(20)), key_order::verdict::attempt);
  EXPECT_TRUE(book.empty() == false);
}

// The park survives the partition's move: the commit names the records behind the DLQ record,
// and the next owner's book sends them there when it takes them.
TEST(KeyOrder, WithParkTheRecordsBehindADeadLetteredOneAreNamedForTheCommitAndParkedAgain) {
  const key_ordering park{ordering_mode::key, dead_letter_followers::park, 10000, 1000};
  key_order book{park, source};
  for (std::int64_t o = 10; o <= 12; ++o) {
    book.enter("42", o, in_source(o), 0);
  }
  book.enter("7", 13, in_source(13), 0);
  ASSERT_EQ(book.admit(in_source(10)), key_order::verdict::attempt);
  ASSERT_EQ(book.admit(in_source(11)), key_order::verdict::follow);
  ASSERT_EQ(book.finish(in_source(10), delivery_end::dead_lettered, 1).size(), 1U);
  EXPECT_EQ(book.dead_parked_origins().runs(), (std::map<std::int64_t, std::int64_t>{{11, 13}}))
      << "42's records behind its DLQ record; 7's is not parked";

  key_order next{park, source};
  next.park_behind_dead_letter(book.dead_parked_origins());
  EXPECT_EQ(next.dead_parked_origins().runs(), (std::map<std::int64_t, std::int64_t>{{11, 13}}))
      << "named until taken again";
  next.enter("42", 11, in_source(11), 5);
  next.enter("42", 12, in_source(12), 5);
  next.enter("7", 13, in_source(13), 5);
  EXPECT_EQ(next.admit(in_source(11)), key_order::verdict::dead_letter);
  EXPECT_EQ(next.admit(in_source(12)), key_order::verdict::follow);
  EXPECT_EQ(next.admit(in_source(13)), key_order::verdict::attempt);
  const auto released = next.finish(in_source(11), delivery_end::dead_lettered, 6);
  ASSERT_EQ(released.size(), 1U);
  EXPECT_EQ(released[0].what, key_order::verdict::dead_letter) << "behind it, in order";
  ASSERT_TRUE(next.finish(in_source(12), delivery_end::dead_lettered, 7).empty());
  EXPECT_TRUE(next.dead_parked_origins().empty());
  next.enter("42", 20, in_source(20), 8);
  EXPECT_EQ(next.admit(in_source(20)), key_order::verdict::attempt)
      << "the park ended with the records it named";

  key_order release{{ordering_mode::key, dead_letter_followers::release, 10000, 1000}, source};
  release.enter("42", 10, in_source(10), 0);
  release.enter("42", 11, in_source(11), 0);
  ASSERT_EQ(release.admit(in_source(10)), key_order::verdict::attempt);
  (void)release.finish(in_source(10), delivery_end::dead_lettered, 1);
  EXPECT_TRUE(release.dead_parked_origins().empty()) << "release: nothing parked to name";
}

TEST(KeyOrder, ANewOwnerThatEnteredTheTiersContentsHoldsTheParkedKeysRecords) {
  // The tier's records past its committed offset, entered before the source partition's.
  key_order book{{}, source};
  book.enter("42", 10, in_tier(tier_30s, 4), 0);
  book.enter("42", 11, in_source(11), 0);
  book.enter("7", 12, in_source(12), 0);
  EXPECT_EQ(book.admit(in_source(11)), key_order::verdict::follow);
  EXPECT_EQ(book.admit(in_source(12)), key_order::verdict::attempt);
  // Another instance delivers the tier's record and commits past it.
  const auto released = book.finished_below({tier_30s, 3}, 5, {}, 30000);
  ASSERT_EQ(released.size(), 1U);
  EXPECT_EQ(released[0].at, in_source(11));
}

TEST(KeyOrder, ACommittedViewPastACopyThatMovedOnKeepsTheKeyParkedBehindItsNextCopy) {
  key_order book{{}, source};
  book.enter("42", 10, in_tier(tier_5s, 0), 0);
  book.enter("42", 11, in_source(11), 0);
  ASSERT_EQ(book.admit(in_source(11)), key_order::verdict::follow);
  // Read in the documented order: the 30 s tier's new copy first, then the 5 s tier's commit.
  book.enter("42", 10, in_tier(tier_30s, 0), 10);
  EXPECT_TRUE(book.finished_below({tier_5s, 3}, 1, {}, 10).empty());
  EXPECT_EQ(book.parked_keys(), 1U);
  EXPECT_FALSE(book.finished_below({tier_30s, 3}, 1, {}, 40).empty());
  EXPECT_FALSE(book.empty()) << "11 is still to be delivered";
  EXPECT_EQ(book.parked_keys(), 0U);
}

TEST(KeyOrder, ARevokedPartitionsFollowersAreNoLongerHeldButTheirRecordsStayUnfinished) {
  key_order book{{}, source};
  book.enter("42", 10, in_source(10), 0);
  book.enter("42", 11, in_source(11), 0);
  ASSERT_EQ(book.admit(in_source(10)), key_order::verdict::attempt);
  ASSERT_EQ(book.admit(in_source(11)), key_order::verdict::follow);
  book.drop_held({source, 3});
  EXPECT_EQ(book.followers(), 0U);
  EXPECT_TRUE(book.finish(in_source(10), delivery_end::delivered, 1).empty())
      << "11 is no longer held here";
  EXPECT_EQ(book.later_than("42", 0), std::vector<std::int64_t>{11});
}

TEST(KeyOrder, TooManyFollowersOfAKeyOrTooManyParkedKeysAreOverTheBound) {
  key_order book{{ordering_mode::key, dead_letter_followers::release, 2, 2}, source};
  book.enter("42", 0, in_source(0), 0);
  ASSERT_EQ(book.admit(in_source(0)), key_order::verdict::attempt);
  book.enter("42", 1, in_source(1), 0);
  ASSERT_EQ(book.admit(in_source(1)), key_order::verdict::follow);
  EXPECT_FALSE(book.over_bound());
  book.enter("42", 2, in_source(2), 0);
  ASSERT_EQ(book.admit(in_source(2)), key_order::verdict::follow);
  EXPECT_TRUE(book.over_bound()) << "two followers of one key";
  ASSERT_EQ(book.finish(in_source(0), delivery_end::delivered, 1).size(), 1U);
  EXPECT_FALSE(book.over_bound());

  book.enter("a", 5, in_tier(tier_5s, 0), 1);
  EXPECT_FALSE(book.over_bound());
  book.enter("b", 6, in_tier(tier_5s, 1), 1);
  EXPECT_TRUE(book.over_bound()) << "two parked keys";
}

TEST(KeyOrder, ACopyTheBookDoesNotKnowIsAttemptedAndItsEndChangesNothing) {
  key_order book{{}, source};
  EXPECT_EQ(book.admit(in_source(3)), key_order::verdict::attempt);
  EXPECT_TRUE(book.finish(in_source(3), delivery_end::delivered, 0).empty());
  EXPECT_TRUE(book.empty());
}

// The ordering core under random failures, tier moves, crashes and takeovers: after every step,
// no record of a key was attempted while an earlier one of that key was not yet delivered or
// dead-lettered, the book's counts match what the stage holds, and in the end every record is
// delivered or dead-lettered and nothing is held or parked.
class key_order_world {
 public:
  explicit key_order_world(std::uint32_t seed, dead_letter_followers on_dead_letter)
      : rng_(seed), settings_{ordering_mode::key, on_dead_letter, 1000000, 1000000} {
    book_ = std::make_unique<key_order>(settings_, source);
  }

  void run(int steps) {
    for (int i = 0; i < steps; ++i) {
      step();
      check();
    }
    // Quiet ending: no new records, every attempt succeeds.
    failures_ = false;
    for (int i = 0; i < 200000 && !all_finished(); ++i) {
      step();
      check();
    }
    ASSERT_TRUE(all_finished()) << "records left: " << unfinished_count();
    EXPECT_EQ(book_->followers(), 0U);
    // Every park ended with the last record of its key.
    EXPECT_EQ(book_->parked_keys(), 0U);
    EXPECT_TRUE(book_->empty());
    EXPECT_FALSE(book_->over_bound());
  }

 private:
  struct copy_state {
    std::int64_t origin = 0;
    bool finished = false;
  };
  enum class stage_state : std::uint8_t { waiting, in_flight, held };

  bool on_dead_letter_park() const {
    return settings_.on_dead_letter == dead_letter_followers::park;
  }

  std::size_t pick(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>{0, n - 1}(rng_);
  }
  bool chance(double p) { return std::bernoulli_distribution{p}(rng_); }

  void step() {
    ++steps_;
    const auto what = pick(10);
    if (what < 3 && next_origin_ < 400 && failures_) {
      fetch();
    } else if (what < 5 && !waiting_.empty()) {
      admit_one();
    } else if (what < 9 && !in_flight_.empty()) {
      complete_one();
    } else if (what == 9 && failures_ && chance(0.05)) {
      crash();
    } else if (!waiting_.empty()) {
      admit_one();
    } else if (!in_flight_.empty()) {
      complete_one();
    }
  }

  void fetch() {
    const std::int64_t o = next_origin_++;
    keys_[o] = "k" + std::to_string(pick(12));
    entered_at_[o] = steps_;
    const record_position at = in_source(o);
    copies_[at] = copy_state{o, false};
    book_->enter(keys_[o], o, at, now_);
    waiting_.insert(at);
  }

  void admit_one() {
    auto it = std::next(waiting_.begin(), static_cast<std::ptrdiff_t>(pick(waiting_.size())));
    const record_position at = *it;
    waiting_.erase(it);
    act(at, book_->admit(at));
  }

  void act(const record_position& at, key_order::verdict v) {
    switch (v) {
      case key_order::verdict::attempt:
        attempt(at);
        in_flight_.insert(at);
        break;
      case key_order::verdict::follow:
        held_.insert(at);
        break;
      case key_order::verdict::dead_letter:
        ASSERT_TRUE(on_dead_letter_park());
        held_.erase(at);
        end(at, delivery_end::dead_lettered);
        break;
    }
  }

  // The order invariant, at every attempt: every earlier record of the key is finished for good.
  void attempt(const record_position& at) {
    const std::int64_t o = copies_.at(at).origin;
    for (std::int64_t earlier = 0; earlier < o; ++earlier) {
      if (keys_.at(earlier) == keys_.at(o)) {
        ASSERT_TRUE(delivered_.count(earlier) != 0 || dead_.count(earlier) != 0)
            << "record " << o << " of key " << keys_.at(o) << " attempted before " << earlier;
      }
    }
    if (on_dead_letter_park()) {
      for (std::int64_t earlier = 0; earlier < o; ++earlier) {
        // A park lasts while its key has records pending: one taken after the chain ended
        // may be attempted.
        const auto dead = dead_at_.find(earlier);
        ASSERT_FALSE(keys_.at(earlier) == keys_.at(o) && dead != dead_at_.end() &&
                     dead->second >= entered_at_.at(o))
            << "park: record " << o << " attempted behind " << earlier
            << ", dead-lettered while it was pending";
      }
    }
  }

  void complete_one() {
    auto it = std::next(in_flight_.begin(), static_cast<std::ptrdiff_t>(pick(in_flight_.size())));
    const record_position at = *it;
    in_flight_.erase(it);
    const auto roll = pick(10);
    if (!failures_ || roll < 6) {
      delivered_.insert(copies_.at(at).origin);
      end(at, delivery_end::delivered);
    } else if (roll < 9 && at.topic != tier_30s) {
      move(at);
    } else {
      end(at, delivery_end::dead_lettered);
    }
  }

  void move(const record_position& at) {
    const std::string next_tier = at.topic == source ? tier_5s : tier_30s;
    const record_position next = in_tier(next_tier, tier_end_[next_tier]++);
    const std::int64_t o = copies_.at(at).origin;
    copies_[next] = copy_state{o, false};
    if (chance(0.5)) {  // the ack of the move seen before or after the new copy is read
      book_->enter(keys_.at(o), o, next, now_);
      end(at, delivery_end::retried);
    } else {
      end(at, delivery_end::retried);
      book_->enter(keys_.at(o), o, next, now_);
    }
    waiting_.insert(next);
  }

  void end(const record_position& at, delivery_end how) {
    copies_.at(at).finished = true;
    if (how == delivery_end::dead_lettered) {
      dead_.insert(copies_.at(at).origin);
      dead_at_.try_emplace(copies_.at(at).origin, steps_);
    }
    ++now_;
    for (const auto& r : book_->finish(at, how, now_)) {
      ASSERT_EQ(held_.erase(r.at), 1U) << to_string(r.at) << " released but not held";
      act(r.at, r.what);
    }
  }

  // A SIGKILL and a new owner: what the stage held is gone; in flight may have been delivered
  // (at least once) without its end being written. The new owner reads the records the last
  // commit named as parked behind a DLQ record (the commit taken just before the kill), enters
  // the tiers' unfinished copies first, then the source's, and admits nothing before.
  void crash() {
    auto parked = book_->dead_parked_origins();
    for (const auto& at : in_flight_) {
      if (chance(0.5)) {
        delivered_.insert(copies_.at(at).origin);  // delivered, the answer lost with it
      }
    }
    in_flight_.clear();
    held_.clear();
    waiting_.clear();
    book_ = std::make_unique<key_order>(settings_, source);
    book_->park_behind_dead_letter(std::move(parked));
    for (const auto& [at, c] : copies_) {  // record_position order: source first, then tiers
      if (!c.finished && at.topic != source) {
        book_->enter(keys_.at(c.origin), c.origin, at, now_);
        waiting_.insert(at);
      }
    }
    for (const auto& [at, c] : copies_) {
      if (!c.finished && at.topic == source) {
        book_->enter(keys_.at(c.origin), c.origin, at, now_);
        waiting_.insert(at);
      }
    }
  }

  void check() { EXPECT_EQ(book_->followers(), held_.size()); }

  bool all_finished() const { return unfinished_count() == 0; }
  std::size_t unfinished_count() const {
    std::size_t n = 0;
    for (std::int64_t o = 0; o < next_origin_; ++o) {
      n += delivered_.count(o) != 0 || dead_.count(o) != 0 ? 0 : 1;
    }
    return n;
  }

  std::mt19937 rng_;
  key_ordering settings_;
  std::unique_ptr<key_order> book_;
  std::map<std::int64_t, std::string> keys_;
  std::map<record_position, copy_state> copies_;
  std::set<record_position> waiting_;
  std::set<record_position> in_flight_;
  std::set<record_position> held_;
  std::set<std::int64_t> delivered_;
  std::set<std::int64_t> dead_;
  std::size_t steps_ = 0;
  std::map<std::int64_t, std::size_t> entered_at_;  // the step each record was taken at
  std::map<std::int64_t, std::size_t> dead_at_;     // the step each was dead-lettered at
  std::map<std::string, std::int64_t> tier_end_;
  std::int64_t next_origin_ = 0;
  std::int64_t now_ = 0;
  bool failures_ = true;
};

TEST(KeyOrderProperty, NoRecordOfAKeyIsAttemptedBeforeTheEarlierOnesEndedThroughMovesAndCrashes) {
  for (std::uint32_t seed = 1; seed <= 150; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    key_order_world world{seed, dead_letter_followers::release};
    world.run(3000);
    if (HasFatalFailure()) {
      return;
    }
  }
}

TEST(KeyOrderProperty, WithParkNothingIsAttemptedBehindADeadLetteredRecord) {
  for (std::uint32_t seed = 1; seed <= 150; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    key_order_world world{seed, dead_letter_followers::park};
    world.run(3000);
    if (HasFatalFailure()) {
      return;
    }
  }
}

}  // namespace
}  // namespace courier
