#include "core/kafka/assignor_state_watch.hpp"

#include <gtest/gtest.h>

namespace courier::kafka {
namespace {

constexpr const char* sticky_chosen =
    "[thrd:main]: JoinGroup response: GenerationId 3, Protocol cooperative-sticky, LeaderId "
    "rdkafka-1 (me), "
    "my MemberId rdkafka-1, member metadata count 2: (no error)";
constexpr const char* assignment_made = "[thrd:main]: List with 4 partition(s):";

TEST(AssignorStateWatch, AStickyAssignorChosenWithoutAnAssignmentWouldAbortTheDestroy) {
  assignor_state_watch w;
  EXPECT_FALSE(w.destroy_would_abort()) << "no assignor yet: librdkafka destroys nothing";
  w.observe("JOINGROUP", sticky_chosen);
  EXPECT_TRUE(w.destroy_would_abort());
  w.observe("ASSIGNMENT", assignment_made);
  EXPECT_FALSE(w.destroy_would_abort());
  w.observe("JOINGROUP", sticky_chosen);
  EXPECT_FALSE(w.destroy_would_abort()) << "the same assignor keeps its state across joins";
}

TEST(AssignorStateWatch, ARefusedJoinGroupChoosesNothing) {
  assignor_state_watch w;
  w.observe("JOINGROUP",
            "JoinGroup response: GenerationId -1, Protocol , LeaderId , my MemberId , member "
            "metadata count 0: Broker: Group rebalance in progress");
  EXPECT_FALSE(w.destroy_would_abort());
}

TEST(AssignorStateWatch, AnEagerAssignorHasNoStateToDestroy) {
  assignor_state_watch w;
  w.observe("JOINGROUP",
            "JoinGroup response: GenerationId 1, Protocol range, LeaderId a, my MemberId a, "
            "member metadata count 1: (no error)");
  EXPECT_FALSE(w.destroy_would_abort());
}

TEST(AssignorStateWatch, AnotherAssignorChosenLaterStartsWithoutState) {
  assignor_state_watch w;
  w.observe("JOINGROUP",
            "JoinGroup response: GenerationId 1, Protocol range, LeaderId a, my MemberId a, "
            "member metadata count 1: (no error)");
  w.observe("ASSIGNMENT", assignment_made);
  w.observe("JOINGROUP", sticky_chosen);
  EXPECT_TRUE(w.destroy_would_abort());
}

TEST(AssignorStateWatch, OtherLinesOfTheFacilitiesAreIgnored) {
  assignor_state_watch w;
  w.observe("JOINGROUP", sticky_chosen);
  w.observe("ASSIGNMENT", R"(Group "g": clearing group assignment)");
  w.observe("CGRPJOINSTATE", assignment_made);
  EXPECT_TRUE(w.destroy_would_abort());
}

}  // namespace
}  // namespace courier::kafka
