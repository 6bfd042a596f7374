// The admin listener's slot book, without sockets: who gets a slot, whose idle connection makes
// room, and when a connection is refused.

#include "admin/slots.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace courier::admin {
namespace {

using verdict = admission::verdict;

// `n` connections from `peer`, each answered once and idle since, in order.
std::vector<admin_slot_id> idle_connections(admin_slots& slots, const std::string& peer, int n) {
  std::vector<admin_slot_id> out;
  for (int i = 0; i < n; ++i) {
    const auto a = slots.admit(peer);
    EXPECT_EQ(a.what, verdict::admitted);
    slots.idle(a.slot);
    out.push_back(a.slot);
  }
  return out;
}

TEST(AdminSlots, AdmitsNewConnectionsAsBusyUntilTheirFirstAnswer) {
  admin_slots slots{{4, 2}};
  const auto a = slots.admit("10.0.0.1");
  ASSERT_EQ(a.what, verdict::admitted);
  EXPECT_FALSE(a.evicted);
  EXPECT_FALSE(slots.is_idle(a.slot));
  slots.idle(a.slot);
  EXPECT_TRUE(slots.is_idle(a.slot));
  slots.busy(a.slot);
  EXPECT_FALSE(slots.is_idle(a.slot));
  EXPECT_EQ(slots.open(), 1U);
  EXPECT_EQ(slots.open_from("10.0.0.1"), 1U);
}

TEST(AdminSlots, WhenFullANewConnectionTakesTheSlotOfTheOldestIdleOne) {
  admin_slots slots{{4, 4}};
  const auto a = idle_connections(slots, "10.0.0.1", 2);
  const auto b = idle_connections(slots, "10.0.0.2", 2);
  slots.busy(a[0]);  // mid-request: never pushed out
  const auto probe = slots.admit("10.0.0.9");
  ASSERT_EQ(probe.what, verdict::admitted);
  ASSERT_TRUE(probe.evicted);
  EXPECT_EQ(*probe.evicted, a[1]) << "the connection idle the longest";
  EXPECT_EQ(slots.open(), 4U);
  EXPECT_EQ(slots.open_from("10.0.0.1"), 1U);
  EXPECT_EQ(slots.counts().evicted, 1U);
  // The evicted connection's own release afterwards changes nothing.
  slots.release(*probe.evicted);
  EXPECT_EQ(slots.open(), 4U);
  const auto next = slots.admit("10.0.0.9");
  ASSERT_EQ(next.what, verdict::admitted);
  EXPECT_EQ(next.evicted, b[0]);
}

TEST(AdminSlots, IdleSinceCountsFromTheLastAnswerNotFromTheConnect) {
  admin_slots slots{{2, 2}};
  const auto first = idle_connections(slots, "10.0.0.1", 2);
  slots.busy(first[0]);
  slots.idle(first[0]);  // answered again: now the most recent idle one
  EXPECT_EQ(slots.admit("10.0.0.2").evicted, first[1]);
}

TEST(AdminSlots, RefusesWhenEverySlotIsBusy) {
  admin_slots slots{{3, 3}};
  for (const char* peer : {"10.0.0.1", "10.0.0.2", "10.0.0.3"}) {
    ASSERT_EQ(slots.admit(peer).what, verdict::admitted);  // busy: no first answer yet
  }
  const auto refused = slots.admit("10.0.0.4");
  EXPECT_EQ(refused.what, verdict::all_busy);
  EXPECT_FALSE(refused.evicted);
  EXPECT_EQ(slots.open(), 3U);
  EXPECT_EQ(slots.counts().refused_all_busy, 1U);
}

TEST(AdminSlots, APeerAtItsCapIsRefusedWhileItsConnectionsAreBusyEvenWithSlotsFree) {
  admin_slots slots{{64, 8}};
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(slots.admit("10.0.0.1").what, verdict::admitted);
  }
  EXPECT_EQ(slots.admit("10.0.0.1").what, verdict::peer_busy);
  EXPECT_EQ(slots.counts().refused_peer_busy, 1U);
  EXPECT_EQ(slots.admit("10.0.0.2").what, verdict::admitted) << "other peers are not held";
}

TEST(AdminSlots, APeerAtItsCapTakesTheSlotOfItsOwnOldestIdleConnectionNotAnothers) {
  admin_slots slots{{64, 2}};
  const auto other = idle_connections(slots, "10.0.0.2", 1);
  const auto own = idle_connections(slots, "10.0.0.1", 2);
  const auto a = slots.admit("10.0.0.1");
  ASSERT_EQ(a.what, verdict::admitted);
  EXPECT_EQ(a.evicted, own[0]);
  EXPECT_TRUE(slots.is_idle(other[0]));
  EXPECT_EQ(slots.open_from("10.0.0.1"), 2U);
}

TEST(AdminSlots, AReleasedSlotIsFreeForAnyone) {
  admin_slots slots{{1, 1}};
  const auto a = slots.admit("10.0.0.1");
  EXPECT_EQ(slots.admit("10.0.0.2").what, verdict::all_busy);
  slots.release(a.slot);
  EXPECT_EQ(slots.open(), 0U);
  EXPECT_EQ(slots.open_from("10.0.0.1"), 0U);
  const auto b = slots.admit("10.0.0.2");
  EXPECT_EQ(b.what, verdict::admitted);
  EXPECT_FALSE(b.evicted);
}

TEST(AdminSlots, RefusesLimitsOfZero) {
  EXPECT_THROW(admin_slots({0, 1}), std::invalid_argument);
  EXPECT_THROW(admin_slots({1, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace courier::admin
