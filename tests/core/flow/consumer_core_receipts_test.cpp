// The consumer core's records answered 2xx whose receipts are on their way to the broker
// (consumer_core::awaiting_receipt): out of the route's bound, still uncommitted.

#include <gtest/gtest.h>

#include "core/flow/consumer_core.hpp"
#include "tests/core/flow/consumer_core_fakes.hpp"

namespace courier {
namespace {

using testing::bounded;
using testing::fake_io;
using testing::fresh;
using testing::give_up;
using testing::offsets_of;
using testing::p0;
using testing::p1;
using testing::rec;

TEST(ConsumerCoreReceipts, ARecordAwaitingItsReceiptFreesItsPlaceButHoldsTheCommitPoint) {
  fake_io io;
  consumer_core core{bounded(2), io};
  core.assign(fresh({p0}), 0);
  for (std::int64_t o = 0; o < 4; ++o) {
    core.take(rec(p0, o), 0);
  }
  ASSERT_EQ(core.room(), 0U);

  ASSERT_TRUE(core.awaiting_receipt(p0, 0, 1));
  EXPECT_EQ(core.awaiting_receipt(), 1U);
  EXPECT_EQ(core.room(), 1U);
  core.release_overflow(1);
  EXPECT_EQ(offsets_of(io.dispatched, p0), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(core.outstanding(), 3U) << "the one awaiting its receipt is still out";
  EXPECT_EQ(core.view(p0)->committable, 0) << "not committed before its receipt is acknowledged";

  ASSERT_TRUE(core.complete(p0, 0, delivery_end::delivered, 2));
  EXPECT_EQ(core.awaiting_receipt(), 0U);
  EXPECT_EQ(core.view(p0)->committable, 1);
  EXPECT_EQ(core.room(), 0U) << "1 and 2 with the delivery pool";
  EXPECT_EQ(core.statuses(2).front().accounting.delivered, 1U);
}

TEST(ConsumerCoreReceipts, BeyondFourBoundsWorthTheRecordsAwaitingReceiptsCountAgainstTheRoute) {
  static_assert(consumer_core::receipt_wait_bounds == 4);
  fake_io io;
  consumer_core core{bounded(2), io};
  core.assign(fresh({p0}), 0);
  for (std::int64_t o = 0; o < 20; ++o) {
    core.take(rec(p0, o), 0);
  }
  // Each pair answered frees the route for the next: eight await their receipts.
  for (std::int64_t o = 0; o < 8; ++o) {
    ASSERT_TRUE(core.awaiting_receipt(p0, o, 0));
    core.release_overflow(0);
  }
  EXPECT_EQ(core.awaiting_receipt(), 8U);
  EXPECT_EQ(io.dispatched.size(), 10U) << "two with the delivery pool beside eight awaiting";
  EXPECT_EQ(core.room(), 0U);
  ASSERT_TRUE(core.awaiting_receipt(p0, 8, 0));
  ASSERT_TRUE(core.awaiting_receipt(p0, 9, 0));
  EXPECT_EQ(core.room(), 0U) << "ten awaiting, two beyond their bound: the route stays full";
  core.release_overflow(0);
  EXPECT_EQ(io.dispatched.size(), 10U) << "at most five times max_in_flight out, receipts included";
  ASSERT_TRUE(core.complete(p0, 0, delivery_end::delivered, 0));
  EXPECT_EQ(core.room(), 1U);
}

TEST(ConsumerCoreReceipts, ANoticeTwiceAfterTheOutcomeOrOfAnotherPartitionChangesNothing) {
  fake_io io;
  consumer_core core{bounded(4), io};
  core.assign(fresh({p0}), 0);
  core.take(rec(p0, 0), 0);
  core.take(rec(p0, 1), 0);
  ASSERT_TRUE(core.awaiting_receipt(p0, 0, 0));
  EXPECT_FALSE(core.awaiting_receipt(p0, 0, 0)) << "twice";
  EXPECT_FALSE(core.awaiting_receipt(p1, 0, 0)) << "not assigned";
  EXPECT_FALSE(core.awaiting_receipt(p0, 7, 0)) << "not in flight";
  ASSERT_TRUE(core.complete(p0, 1, delivery_end::delivered, 0));
  EXPECT_FALSE(core.awaiting_receipt(p0, 1, 0)) << "finished";
  EXPECT_EQ(core.awaiting_receipt(), 1U);
  EXPECT_EQ(core.room(), 4U);
}

TEST(ConsumerCoreReceipts, ARevokeWaitsForThemAndForgetsThem) {
  fake_io io;
  consumer_core core{bounded(4), io};
  core.assign(fresh({p0, p1}), 0);
  core.take(rec(p0, 0), 0);
  core.take(rec(p1, 0), 0);
  ASSERT_TRUE(core.awaiting_receipt(p0, 0, 0));
  ASSERT_TRUE(core.awaiting_receipt(p1, 0, 0));
  EXPECT_EQ(core.outstanding_of({p0}), 1U) << "the drain on revoke waits for its receipt";
  give_up(core, io, {p0});
  EXPECT_EQ(io.stored.at(p0), 0) << "its receipt was never acknowledged: the next owner redoes it";
  EXPECT_EQ(core.awaiting_receipt(), 1U) << "p1's only";
  EXPECT_EQ(core.outstanding(), 1U);
  EXPECT_EQ(core.room(), 4U);
  EXPECT_FALSE(core.complete(p0, 0, delivery_end::delivered, 1)) << "the next owner's now";
}

TEST(ConsumerCoreReceipts, TheOldCopysNoticeAfterARevokeIsNotTakenForTheNewCopys) {
  fake_io io;
  consumer_core core{bounded(4), io};
  core.assign(fresh({p0}), 0);
  core.take(rec(p0, 3), 0);
  give_up(core, io, {p0});
  core.assign(fresh({p0}), 1);
  EXPECT_EQ(core.take(rec(p0, 3), 1), consumer_core::intake::dispatched);
  EXPECT_FALSE(core.awaiting_receipt(p0, 3, 2)) << "it may be the old copy's";
  EXPECT_EQ(core.room(), 3U);
}

TEST(ConsumerCoreReceipts, ARecordAwaitingItsReceiptLeavesItsPartitionsOwnBound) {
  fake_io io;
  auto s = bounded(100);
  s.max_in_flight_per_partition = 2;
  consumer_core core{s, io};
  core.assign(fresh({p0}), 0);
  for (std::int64_t o = 0; o < 4; ++o) {
    core.take(rec(p0, o), 0);
  }
  ASSERT_EQ(offsets_of(io.dispatched, p0), (std::vector<std::int64_t>{0, 1}));
  ASSERT_TRUE(core.awaiting_receipt(p0, 0, 5));
  EXPECT_EQ(offsets_of(io.dispatched, p0), (std::vector<std::int64_t>{0, 1, 2}))
      << "the held record goes out at once";
  ASSERT_TRUE(core.complete(p0, 0, delivery_end::delivered, 9));
  EXPECT_EQ(offsets_of(io.dispatched, p0), (std::vector<std::int64_t>{0, 1, 2}))
      << "its receipt's acknowledgement frees no second place";
  ASSERT_TRUE(core.complete(p0, 1, delivery_end::delivered, 9));
  EXPECT_EQ(offsets_of(io.dispatched, p0), (std::vector<std::int64_t>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace courier
