#include "core/flow/revoke_drain.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/core/flow/consumer_core_fakes.hpp"

// The drain on revoke, driving a consumer core on the fake backend: what waits, what is
// committed and given up when, and what a lost assignment, a second member's revoke, an
// assignment and the close do to a revoke that waits.
namespace courier {
namespace {

using testing::bounded_with_tier;
using testing::fake_io;
using testing::fresh;
using testing::p0;
using testing::p1;
using testing::rec;
using testing::tier0;

constexpr std::chrono::milliseconds timeout{2000};

std::string name(const partition_id& p) {
  return p.topic + "[" + std::to_string(p.partition) + "]";
}

std::string names(const std::vector<partition_id>& ps) {
  std::string out;
  for (const auto& p : ps) {
    out += (out.empty() ? "" : ",") + name(p);
  }
  return out;
}

std::string step_name(revoke_report::step s) {
  switch (s) {
    case revoke_report::step::lost:
      return "lost";
    case revoke_report::step::given_up:
      return "given_up";
    case revoke_report::step::waiting:
      return "waiting";
    case revoke_report::step::joined:
      return "joined";
  }
  return "?";
}

// What the drain had carried out, in order, and the commit points taken as the actor commits.
class fake_revoke_io final : public revoke_backend {
 public:
  explicit fake_revoke_io(consumer_core& core) : core_(core) {}
  void commit_final(const std::vector<partition_id>& ps) override {
    for (const auto& c : core_.commit_points(default_offset_map_budget, ps)) {
      committed[c.partition] = c.offset;
    }
    did.push_back("commit " + names(ps));
  }
  void complete_revoke() override { did.emplace_back("complete_revoke"); }
  void arm_deadline(std::chrono::milliseconds after, std::uint64_t n) override {
    EXPECT_EQ(after, timeout);
    did.push_back("deadline " + std::to_string(n));
  }
  void revoked(const revoke_report& r) override {
    reports.push_back(r);
    did.push_back(step_name(r.what) + " " + names(r.partitions));
  }

  std::vector<std::string> did;
  std::vector<revoke_report> reports;
  std::map<partition_id, std::int64_t> committed;

 private:
  consumer_core& core_;
};

struct drain_fixture {
  fake_io io;
  consumer_core core{bounded_with_tier(16), io};
  fake_revoke_io revoke_io{core};
  revoke_drain drain{core, revoke_io, timeout};

  drain_fixture() { core.assign(fresh({p0, p1, tier0}), 0); }
};

using strings = std::vector<std::string>;

TEST(RevokeDrain, ARevokeWithNothingHandedOutIsCommittedAndGivenUpAtOnce) {
  drain_fixture f;
  ASSERT_EQ(f.core.take(rec(p0, 0), 0), consumer_core::intake::dispatched);
  ASSERT_TRUE(f.core.complete(p0, 0, delivery_end::delivered, 1));
  EXPECT_EQ(f.drain.on_revoked({p0}, false, 10), revoke_drain::answer::now);
  EXPECT_EQ(f.revoke_io.did,
            (strings{"commit brew.shipments.v1[0]", "given_up brew.shipments.v1[0]"}));
  EXPECT_EQ(f.revoke_io.committed.at(p0), 1);
  EXPECT_FALSE(f.core.assigned(p0));
  EXPECT_EQ(f.drain.state(), revoke_drain::phase::idle);
}

TEST(RevokeDrain, ARevokeWaitsForItsRecordsThenCommitsThem) {
  drain_fixture f;
  ASSERT_EQ(f.core.take(rec(p0, 0), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(f.core.take(rec(p0, 1), 0), consumer_core::intake::dispatched);
  EXPECT_EQ(f.drain.on_revoked({p0}, false, 100), revoke_drain::answer::later);
  EXPECT_EQ(f.drain.state(), revoke_drain::phase::waiting);
  EXPECT_EQ(f.revoke_io.did, (strings{"deadline 1", "waiting brew.shipments.v1[0]"}));
  EXPECT_EQ(f.revoke_io.reports.back().in_flight, 2U);
  EXPECT_EQ(f.core.take(rec(p0, 2), 100), consumer_core::intake::not_assigned)
      << "it takes nothing while it waits";

  ASSERT_TRUE(f.core.complete(p0, 0, delivery_end::delivered, 150));
  f.drain.on_outcomes(150);
  EXPECT_EQ(f.drain.state(), revoke_drain::phase::waiting) << "one left";
  ASSERT_TRUE(f.core.complete(p0, 1, delivery_end::delivered, 300));
  f.drain.on_outcomes(300);
  EXPECT_EQ(f.revoke_io.did,
            (strings{"deadline 1", "waiting brew.shipments.v1[0]", "commit brew.shipments.v1[0]",
                     "complete_revoke", "given_up brew.shipments.v1[0]"}));
  EXPECT_EQ(f.revoke_io.committed.at(p0), 2);
  EXPECT_EQ(f.revoke_io.reports.back().waited_ms, std::optional<std::int64_t>{200});
  EXPECT_EQ(f.revoke_io.reports.back().in_flight, 0U);
  EXPECT_FALSE(f.core.assigned(p0));
  EXPECT_EQ(f.drain.state(), revoke_drain::phase::idle);
}

TEST(RevokeDrain, ItsDeadlineGivesUpWhatIsLeftAndAnEarlierDeadlineDoesNothing) {
  drain_fixture f;
  ASSERT_EQ(f.core.take(rec(p0, 0), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(f.drain.on_revoked({p0}, false, 0), revoke_drain::answer::later);
  f.drain.on_deadline(1, 2000);
  EXPECT_EQ(f.revoke_io.reports.back().what, revoke_report::step::given_up);
  EXPECT_EQ(f.revoke_io.reports.back().in_flight, 1U) << "left to the next owner";
  EXPECT_EQ(f.revoke_io.committed.at(p0), 0);

  ASSERT_EQ(f.core.take(rec(p1, 0), 2000), consumer_core::intake::dispatched);
  ASSERT_EQ(f.drain.on_revoked({p1}, false, 2000), revoke_drain::answer::later);
  f.drain.on_deadline(1, 2100);
  EXPECT_EQ(f.drain.state(), revoke_drain::phase::waiting) << "the first wait's deadline";
  f.drain.on_deadline(2, 4000);
  EXPECT_EQ(f.drain.state(), revoke_drain::phase::idle);
}

TEST(RevokeDrain, TheOtherMembersRevokeJoinsTheOneWaitingAndEndsWithIt) {
  drain_fixture f;
  ASSERT_EQ(f.core.take(rec(p0, 0), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(f.core.take(rec(tier0, 0), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(f.drain.on_revoked({p0}, false, 0), revoke_drain::answer::later);
  ASSERT_EQ(f.drain.on_revoked({tier0}, false, 40), revoke_drain::answer::later);
  EXPECT_EQ(f.revoke_io.reports.back().what, revoke_report::step::joined);
  EXPECT_EQ(f.revoke_io.reports.back().waited_ms, std::optional<std::int64_t>{40});
  EXPECT_EQ(f.drain.waiting_for(), (std::vector<partition_id>{p0, tier0}));

  ASSERT_TRUE(f.core.complete(p0, 0, delivery_end::delivered, 50));
  f.drain.on_outcomes(50);
  EXPECT_EQ(f.drain.state(), revoke_drain::phase::waiting) << "the tier's record is out";
  ASSERT_TRUE(f.core.complete(tier0, 0, delivery_end::delivered, 60));
  f.drain.on_outcomes(60);
  EXPECT_EQ(f.revoke_io.did.back(), "given_up brew.shipments.v1[0],brew.shipments.v1.retry-5s[0]");
  EXPECT_EQ(std::count(f.revoke_io.did.begin(), f.revoke_io.did.end(), "complete_revoke"), 1);
}

TEST(RevokeDrain, AnAssignmentToTheWaitingMemberEndsItsRevokeAndOnlyThat) {
  drain_fixture f;
  ASSERT_EQ(f.core.take(rec(p0, 0), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(f.drain.on_revoked({p0}, false, 0), revoke_drain::answer::later);
  f.drain.before_assign(fresh({tier0}), 10);
  EXPECT_EQ(f.drain.state(), revoke_drain::phase::waiting) << "the tiers' member moved on";
  f.drain.before_assign(fresh({p0}), 20);
  EXPECT_EQ(f.drain.state(), revoke_drain::phase::idle);
  EXPECT_EQ(f.revoke_io.did.back(), "given_up brew.shipments.v1[0]");
}

TEST(RevokeDrain, ALostAssignmentEndsTheWaitThenGivesUpUncommitted) {
  drain_fixture f;
  ASSERT_EQ(f.core.take(rec(p0, 0), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(f.core.take(rec(p1, 0), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(f.drain.on_revoked({p0}, false, 0), revoke_drain::answer::later);
  EXPECT_EQ(f.drain.on_revoked({p1}, true, 10), revoke_drain::answer::now);
  EXPECT_EQ(
      f.revoke_io.did,
      (strings{"deadline 1", "waiting brew.shipments.v1[0]", "commit brew.shipments.v1[0]",
               "complete_revoke", "given_up brew.shipments.v1[0]", "lost brew.shipments.v1[1]"}));
  EXPECT_EQ(f.revoke_io.committed.count(p1), 0U);
  EXPECT_FALSE(f.core.assigned(p1));
}

TEST(RevokeDrain, ClosingEndsTheWaitAndGivesUpLaterRevokesAtOnceUncommitted) {
  drain_fixture f;
  ASSERT_EQ(f.core.take(rec(p0, 0), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(f.core.take(rec(p1, 0), 0), consumer_core::intake::dispatched);
  ASSERT_EQ(f.drain.on_revoked({p0}, false, 0), revoke_drain::answer::later);
  f.drain.close(5);
  EXPECT_EQ(f.drain.state(), revoke_drain::phase::closed);
  EXPECT_EQ(f.revoke_io.did.back(), "given_up brew.shipments.v1[0]");
  EXPECT_EQ(f.drain.on_revoked({p1}, false, 10), revoke_drain::answer::now)
      << "its record in flight is not waited for";
  EXPECT_EQ(f.revoke_io.did.back(), "given_up brew.shipments.v1[1]");
  EXPECT_EQ(f.revoke_io.committed.count(p1), 0U) << "the close committed it";
  f.drain.on_deadline(1, 2000);
  EXPECT_EQ(f.drain.state(), revoke_drain::phase::closed);
}

}  // namespace
}  // namespace courier
