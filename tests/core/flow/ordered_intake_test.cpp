#include "core/flow/ordered_intake.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/retry/retry_headers.hpp"
#include "tests/core/flow/consumer_core_fakes.hpp"

// routes[].ordering "key" at intake: the books of key order of the source partitions, the
// copies in them, and the followers held behind their key.
namespace courier {
namespace {

using testing::p0;
using testing::p1;
using testing::rec;
using testing::tier0;

key_ordering by_key() {
  key_ordering k;
  k.mode = ordering_mode::key;
  return k;
}

record keyed(const partition_id& p, std::int64_t offset, const std::string& key) {
  auto r = rec(p, offset);
  r.key = key;
  return r;
}

// A tier record whose courier.origin.* names `origin` at `offset`.
record tier_copy(std::int64_t tier_offset, const partition_id& origin, std::int64_t offset,
                 const std::string& key) {
  auto r = keyed(tier0, tier_offset, key);
  r.headers = {{std::string{origin_topic_header}, origin.topic},
               {std::string{origin_partition_header}, std::to_string(origin.partition)},
               {std::string{origin_offset_header}, std::to_string(offset)}};
  return r;
}

std::vector<std::int64_t> offsets(const std::vector<key_order::release>& go) {
  std::vector<std::int64_t> out;
  for (const auto& r : go) {
    out.push_back(r.at.offset);
  }
  return out;
}

TEST(OrderedIntake, WithOrderingNoneItOrdersNothingAndMakesNoBook) {
  ordered_intake in{key_ordering{}, p0.topic};
  EXPECT_EQ(in.enter(keyed(p0, 0, "42"), false, 0), std::nullopt);
  EXPECT_EQ(in.admit(keyed(p0, 0, "42")), key_order::verdict::attempt);
  EXPECT_EQ(in.book_count(), 0U);
}

TEST(OrderedIntake, AKeysLaterRecordFollowsAndGoesWhenTheEarlierOneFinished) {
  ordered_intake in{by_key(), p0.topic};
  EXPECT_EQ(in.enter(keyed(p0, 0, "42"), false, 0), std::optional<partition_id>{p0});
  EXPECT_EQ(in.enter(keyed(p0, 1, "42"), false, 0), std::optional<partition_id>{p0});
  EXPECT_EQ(in.enter(rec(p0, 2), false, 0), std::nullopt) << "no key: unordered";
  EXPECT_EQ(in.admit(keyed(p0, 0, "42")), key_order::verdict::attempt);
  ASSERT_EQ(in.admit(keyed(p0, 1, "42")), key_order::verdict::follow);
  EXPECT_EQ(in.follow(keyed(p0, 1, "42")), p0);
  EXPECT_TRUE(in.is_follower({p0.topic, p0.partition, 1}));
  EXPECT_EQ(in.follower_count(), 1U);
  EXPECT_EQ(in.later_of_key({p0.topic, p0.partition, 0}), (std::vector<std::int64_t>{1}));

  const auto released = in.finish(p0, 0, delivery_end::delivered, 10);
  ASSERT_TRUE(released);
  EXPECT_EQ(released->book, p0);
  ASSERT_EQ(offsets(released->go), (std::vector<std::int64_t>{1}));
  const auto r = in.release(released->go.front().at);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->offset, 1);
  EXPECT_EQ(in.follower_count(), 0U);
  EXPECT_FALSE(in.finish(p0, 0, delivery_end::delivered, 10)) << "finished once";
  EXPECT_FALSE(in.finish(p0, 2, delivery_end::delivered, 10)) << "never entered";
}

TEST(OrderedIntake, ATierRecordTakesItsOriginsPlaceOnlyInTheBookOfItsOwnNumber) {
  ordered_intake in{by_key(), p0.topic};
  EXPECT_EQ(in.enter(tier_copy(0, p0, 5, "42"), true, 0), std::optional<partition_id>{p0});
  EXPECT_EQ(in.enter(tier_copy(1, p1, 6, "42"), true, 0), std::nullopt)
      << "another partition's origin in tier partition 0: not written by courier";
  EXPECT_EQ(in.enter(tier_copy(2, partition_id{"elsewhere", 0}, 6, "42"), true, 0), std::nullopt);
  EXPECT_EQ(in.enter(keyed(tier0, 3, "42"), true, 0), std::nullopt) << "no origin";
  EXPECT_EQ(in.enter(keyed(partition_id{"other", 0}, 0, "42"), false, 0), std::nullopt)
      << "not the source topic";
  EXPECT_EQ(in.book_count(), 1U);

  // The source's later record of the key waits behind the one in the tier.
  ASSERT_TRUE(in.enter(keyed(p0, 7, "42"), false, 0));
  EXPECT_EQ(in.admit(keyed(p0, 7, "42")), key_order::verdict::follow);
}

TEST(OrderedIntake, ARevokedPartitionsCopiesLeaveTheBookAndReleaseWhatWaitedForThem) {
  ordered_intake in{by_key(), p0.topic};
  ASSERT_TRUE(in.enter(tier_copy(0, p0, 5, "42"), true, 0));
  ASSERT_TRUE(in.enter(keyed(p0, 7, "42"), false, 0));
  ASSERT_EQ(in.admit(keyed(p0, 7, "42")), key_order::verdict::follow);
  (void)in.follow(keyed(p0, 7, "42"));
  ASSERT_TRUE(in.enter(keyed(p0, 8, "9"), false, 0));

  const auto released = in.forget(tier0, 10);
  ASSERT_TRUE(released);
  EXPECT_EQ(released->book, p0);
  EXPECT_EQ(offsets(released->go), (std::vector<std::int64_t>{7}));
  EXPECT_FALSE(in.forget(tier0, 10)) << "nothing left of it";
  EXPECT_EQ(in.drop_followers(p0), (std::vector<std::int64_t>{7}));
  EXPECT_FALSE(in.release({p0.topic, p0.partition, 7})) << "dropped: its next owner has it";
}

TEST(OrderedIntake, TheOrderingPauseIsToldOnceEachWayOrWhenAskedAgain) {
  auto k = by_key();
  k.max_followers = 2;
  ordered_intake in{k, p0.topic};
  EXPECT_EQ(in.ordering_pause(p0), std::nullopt) << "no book";
  for (const std::int64_t offset : {0, 1, 2}) {
    ASSERT_TRUE(in.enter(keyed(p0, offset, "42"), false, 0));
  }
  (void)in.admit(keyed(p0, 0, "42"));
  for (const std::int64_t offset : {1, 2}) {
    ASSERT_EQ(in.admit(keyed(p0, offset, "42")), key_order::verdict::follow);
    (void)in.follow(keyed(p0, offset, "42"));
  }
  EXPECT_EQ(in.ordering_pause(p0), std::optional<bool>{true});
  EXPECT_EQ(in.ordering_pause(p0), std::nullopt) << "unchanged";
  EXPECT_EQ(in.ordering_pause(p0, true), std::optional<bool>{true}) << "forced";
  const auto released = in.finish(p0, 0, delivery_end::delivered, 1);
  ASSERT_TRUE(released);
  ASSERT_EQ(offsets(released->go), (std::vector<std::int64_t>{1}));
  const auto next = in.release(released->go.front().at);
  ASSERT_TRUE(next);
  EXPECT_EQ(in.admit(*next), key_order::verdict::attempt) << "handed out, as the core does";
  EXPECT_EQ(in.ordering_pause(p0), std::optional<bool>{false}) << "one follower left";
}

TEST(OrderedIntake, ParkedRecordsFromTheOffsetMapParkTheirKeysOnlyInASourcePartitionsBook) {
  auto k = by_key();
  k.on_dead_letter = dead_letter_followers::park;
  ordered_intake in{k, p0.topic};
  done_offsets parked;
  parked.add(3, 4);
  in.park_dead_lettered(tier0, parked);
  EXPECT_EQ(in.book_count(), 0U) << "a tier partition has no book";
  in.park_dead_lettered(p0, parked);
  EXPECT_EQ(in.book_count(), 1U);
  EXPECT_EQ(in.dead_parked(p0).runs(), parked.runs());
  ASSERT_TRUE(in.enter(keyed(p0, 3, "42"), false, 0));
  EXPECT_EQ(in.admit(keyed(p0, 3, "42")), key_order::verdict::dead_letter);
  const auto status = in.status(p0);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->parked_keys, 1U);
  EXPECT_FALSE(in.status(p1));
}

TEST(OrderedIntake, TheBooksStayAtOnePerSourcePartitionWhateverTheTierRecordsName) {
  ordered_intake in{by_key(), p0.topic};
  for (std::int64_t i = 0; i < 1000; ++i) {
    (void)in.enter(tier_copy(i, partition_id{"made-up-" + std::to_string(i), 0}, i, "k"), true, 0);
  }
  EXPECT_EQ(in.book_count(), 0U);
}

// A route with several endpoints: the one a record goes to is read from its "to" header.
ordered_intake by_endpoint() {
  return ordered_intake{by_key(), p0.topic, [](const record& r) -> std::optional<std::string> {
                          if (const auto to = find_header(r.headers, "to")) {
                            return std::string{*to};
                          }
                          return std::nullopt;
                        }};
}

record keyed_for(const std::string& endpoint, std::int64_t offset, const std::string& key) {
  auto r = keyed(p0, offset, key);
  r.headers = {{"to", endpoint}};
  return r;
}

TEST(OrderedIntake, WithSeveralEndpointsAKeyIsOrderedWithinEachEndpointAlone) {
  auto in = by_endpoint();
  // b's record of key 42 is parked in a tier (its partner is down); a's records of the same key
  // do not wait for it, b's later one does.
  auto parked = tier_copy(0, p0, 0, "42");
  parked.headers.emplace_back("to", "b");
  ASSERT_TRUE(in.enter(parked, true, 0));
  for (const auto& r :
       {keyed_for("a", 1, "42"), keyed_for("b", 2, "42"), keyed_for("a", 3, "42")}) {
    ASSERT_TRUE(in.enter(r, false, 0));
  }
  EXPECT_EQ(in.admit(keyed_for("a", 1, "42")), key_order::verdict::attempt)
      << "a's first record of the key waits for nothing of b's";
  ASSERT_EQ(in.admit(keyed_for("b", 2, "42")), key_order::verdict::follow);
  (void)in.follow(keyed_for("b", 2, "42"));
  EXPECT_EQ(in.admit(keyed_for("a", 3, "42")), key_order::verdict::follow)
      << "behind a's own earlier record of the key";
  (void)in.follow(keyed_for("a", 3, "42"));

  auto released = in.finish(p0, 1, delivery_end::delivered, 1);
  ASSERT_TRUE(released);
  EXPECT_EQ(offsets(released->go), (std::vector<std::int64_t>{3})) << "a's next, not b's";
  released = in.finish(tier0, 0, delivery_end::delivered, 2);
  ASSERT_TRUE(released);
  EXPECT_EQ(offsets(released->go), (std::vector<std::int64_t>{2})) << "b's, once b's parked one is";

  auto nowhere = keyed(p0, 4, "42");
  EXPECT_EQ(in.enter(nowhere, false, 0), std::nullopt) << "for no endpoint: unordered";
  EXPECT_EQ(in.admit(nowhere), key_order::verdict::attempt);
}

}  // namespace
}  // namespace courier
