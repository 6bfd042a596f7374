// The rebalance callback's decisions on a fake member: what is read, started, given up and
// forgotten, when the owner is asked, and what happens to what a step throws. No broker.

#include "core/kafka/rebalance_protocol.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace courier::kafka {
namespace {

partition_id p(std::int32_t n) { return partition_id{"orders", n}; }

std::string names(const std::vector<partition_id>& ps) {
  std::string out;
  for (const auto& id : ps) {
    out += (out.empty() ? "" : ",") + std::to_string(id.partition);
  }
  return out;
}

// A member that records what it is asked to do, in order, one line a call.
class fake_member final : public rebalance_backend {
 public:
  bool closing_ = false;
  bool lost_ = false;
  std::vector<partition_id> held_;
  revoke_timing answer_ = revoke_timing::now;
  std::string throw_in_;  // the call that throws, by its name in the log
  std::exception_ptr kept_;
  std::vector<std::string> log_;

  [[nodiscard]] bool closing() const override { return closing_; }
  [[nodiscard]] bool assignment_lost() const override { return lost_; }
  [[nodiscard]] std::vector<partition_id> held() const override { return held_; }

  std::vector<assigned_partition> read_assignment(bool ask_committed) override {
    note(ask_committed ? "read committed" : "read without committed");
    std::vector<assigned_partition> given;
    for (const auto& id : assigning_) {
      given.push_back(assigned_partition{
          id, ask_committed ? std::optional<std::int64_t>{7} : std::nullopt, {}});
    }
    return given;
  }
  void take_up() override { note("take up"); }
  void give_up(const std::vector<partition_id>& ps) override { note("give up " + names(ps)); }
  void drop_assignment() override { note("drop assignment"); }
  void clear_pause(const std::vector<partition_id>& ps) override {
    note("clear pause " + names(ps));
  }
  void forget_held_commits(const std::vector<partition_id>& ps) override {
    note("forget commits " + names(ps));
  }
  void report(const std::string& message) override { log_.push_back("report: " + message); }
  bool keep_first(std::exception_ptr e) override {
    if (kept_) {
      return false;
    }
    kept_ = std::move(e);
    return true;
  }
  void owner_assigned(const std::vector<assigned_partition>& given) override {
    std::vector<partition_id> ids;
    for (const auto& a : given) {
      ids.push_back(a.partition);
    }
    note("owner assigned " + names(ids));
  }
  revoke_timing owner_revoked(const std::vector<partition_id>& ps, bool lost) override {
    note("owner revoked " + names(ps) + (lost ? " lost" : ""));
    return answer_;
  }

  std::vector<partition_id> assigning_;

 private:
  void note(const std::string& line) {
    log_.push_back(line);
    if (!throw_in_.empty() && line.rfind(throw_in_, 0) == 0) {
      throw std::runtime_error(line + " failed");
    }
  }
};

using lines = std::vector<std::string>;

TEST(RebalanceProtocol, AnAssignmentReadsTheCommittedOffsetsStartsTheFetchAndTellsTheOwner) {
  rebalance_protocol protocol;
  fake_member m;
  m.assigning_ = {p(0), p(1)};
  protocol.assign({p(0), p(1)}, m);
  EXPECT_EQ(m.log_, (lines{"read committed", "take up", "owner assigned 0,1"}));
}

TEST(RebalanceProtocol, NoCommittedOffsetsAreAskedForWhileClosingOrForAnEmptyAssignment) {
  rebalance_protocol protocol;
  fake_member closing;
  closing.closing_ = true;
  closing.assigning_ = {p(0)};
  protocol.assign({p(0)}, closing);
  EXPECT_EQ(closing.log_, (lines{"read without committed", "take up", "owner assigned 0"}));

  fake_member empty;
  protocol.assign({}, empty);
  EXPECT_EQ(empty.log_, (lines{"read without committed", "take up", "owner assigned "}));
}

TEST(RebalanceProtocol, TheOwnerIsNotToldOfAnAssignmentWhoseOffsetsCouldNotBeRead) {
  rebalance_protocol protocol;
  fake_member m;
  m.assigning_ = {p(0)};
  m.throw_in_ = "read committed";
  protocol.assign({p(0)}, m);
  EXPECT_EQ(m.log_, (lines{"read committed"}));
  EXPECT_TRUE(m.kept_);
}

TEST(RebalanceProtocol, ARevokeAnsweredNowIsGivenUpAtOnce) {
  rebalance_protocol protocol;
  fake_member m;
  m.held_ = {p(0), p(1), p(2)};
  protocol.revoke({p(1), p(2)}, m);
  EXPECT_EQ(m.log_,
            (lines{"owner revoked 1,2", "clear pause 1,2", "give up 1,2", "forget commits 1,2"}));
  EXPECT_FALSE(protocol.revoke_kept());
}

TEST(RebalanceProtocol, ARevokeAnsweredLaterIsKeptUntilTheOwnerCompletesIt) {
  rebalance_protocol protocol;
  fake_member m;
  m.held_ = {p(0), p(1)};
  m.answer_ = revoke_timing::later;
  protocol.revoke({p(1)}, m);
  EXPECT_EQ(m.log_, (lines{"owner revoked 1"}));
  EXPECT_TRUE(protocol.revoke_kept());

  m.log_.clear();
  protocol.complete_revoke(m);
  EXPECT_EQ(m.log_, (lines{"clear pause 1", "give up 1", "forget commits 1"}));
  EXPECT_FALSE(protocol.revoke_kept());
  m.log_.clear();
  protocol.complete_revoke(m);
  EXPECT_TRUE(m.log_.empty());
}

TEST(RebalanceProtocol, AKeptRevokeIsCompletedByTheNextAssignmentOrRevoke) {
  rebalance_protocol protocol;
  fake_member m;
  m.held_ = {p(0), p(1)};
  m.answer_ = revoke_timing::later;
  protocol.revoke({p(0)}, m);
  m.log_.clear();
  m.assigning_ = {p(2)};
  protocol.assign({p(2)}, m);
  EXPECT_EQ(m.log_, (lines{"read committed", "take up", "owner assigned 2", "clear pause 0",
                           "give up 0", "forget commits 0"}));

  protocol.revoke({p(0)}, m);
  m.log_.clear();
  protocol.revoke({p(1)}, m);
  EXPECT_EQ(m.log_, (lines{"owner revoked 1", "clear pause 0", "give up 0", "forget commits 0"}));
  EXPECT_TRUE(protocol.revoke_kept());  // the new one
}

TEST(RebalanceProtocol, OnlyThePartitionsStillHeldAreGivenUpUnlessClosing) {
  rebalance_protocol protocol;
  fake_member m;
  m.held_ = {p(0)};
  m.answer_ = revoke_timing::later;
  protocol.revoke({p(0), p(1)}, m);
  m.log_.clear();
  protocol.complete_revoke(m);
  EXPECT_EQ(m.log_, (lines{"clear pause 0", "give up 0", "forget commits 0"}));

  m.held_.clear();
  protocol.revoke({p(0)}, m);
  m.log_.clear();
  protocol.complete_revoke(m);
  EXPECT_TRUE(m.log_.empty());  // nothing held any more: nothing to give up

  m.closing_ = true;
  m.answer_ = revoke_timing::later;
  m.log_.clear();
  protocol.revoke({p(3)}, m);  // closing: given up at once, held or not
  EXPECT_EQ(m.log_, (lines{"owner revoked 3", "clear pause 3", "give up 3", "forget commits 3"}));
}

TEST(RebalanceProtocol, ALostAssignmentsHeldCommitsAreForgottenBeforeTheOwnerIsAsked) {
  rebalance_protocol protocol;
  fake_member m;
  m.lost_ = true;
  m.held_ = {p(0)};
  protocol.revoke({p(0)}, m);
  EXPECT_EQ(m.log_, (lines{"forget commits 0", "owner revoked 0 lost", "clear pause 0", "give up 0",
                           "forget commits 0"}));
}

TEST(RebalanceProtocol, AnOwnerThatThrowsHasItsErrorKeptAndTheRevokeCompleted) {
  rebalance_protocol protocol;
  fake_member m;
  m.held_ = {p(0)};
  m.throw_in_ = "owner revoked";
  protocol.revoke({p(0)}, m);
  EXPECT_EQ(m.log_, (lines{"owner revoked 0", "clear pause 0", "give up 0", "forget commits 0"}));
  ASSERT_TRUE(m.kept_);
  EXPECT_THROW(std::rethrow_exception(m.kept_), std::runtime_error);
}

TEST(RebalanceProtocol, AFurtherErrorInTheSameRebalanceIsReportedAndDropped) {
  rebalance_protocol protocol;
  fake_member m;
  m.assigning_ = {p(0)};
  m.throw_in_ = "take up";
  m.kept_ = std::make_exception_ptr(std::logic_error("first"));
  protocol.assign({p(0)}, m);
  // The offsets were read: the owner is told even though starting the fetch failed.
  EXPECT_EQ(m.log_, (lines{"read committed", "take up",
                           "report: a further error during the same rebalance was dropped in "
                           "favour of the first",
                           "owner assigned 0"}));
}

TEST(RebalanceProtocol, AFailedRebalanceIsReportedAndDropsTheAssignment) {
  rebalance_protocol protocol;
  fake_member m;
  protocol.fail("Local: Broker transport failure (_TRANSPORT)", m);
  EXPECT_EQ(m.log_, (lines{"report: rebalance failed: Local: Broker transport failure "
                           "(_TRANSPORT); dropping the assignment",
                           "drop assignment"}));
}

TEST(RebalanceProtocol, OnlyTheCooperativeProtocolIsIncremental) {
  EXPECT_TRUE(is_cooperative("COOPERATIVE"));
  EXPECT_FALSE(is_cooperative("EAGER"));
  EXPECT_FALSE(is_cooperative("NONE"));
  EXPECT_FALSE(is_cooperative(nullptr));
}

}  // namespace
}  // namespace courier::kafka
