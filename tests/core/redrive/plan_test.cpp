#include "core/redrive/plan.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace courier::redrive {
namespace {

parked_record parked(header_list headers) {
  record r;
  r.topic = "d";
  r.partition = 0;
  r.offset = 9;
  r.headers = std::move(headers);
  return read_parked_record(std::move(r));
}

const header_list good{{"courier.origin.topic", "o"},
                       {"courier.origin.partition", "2"},
                       {"courier.error.class", "http_503"}};

TEST(Plan, MovesToTheOriginPartitionByDefaultAndToTheTargetWithTo) {
  const decision home = decide(parked(good), plan_settings{}, false);
  EXPECT_EQ(home.what, decision::action::move);
  EXPECT_EQ(home.target_topic, "o");
  EXPECT_EQ(home.target_partition, 2);
  plan_settings s;
  s.to = "elsewhere";
  const decision away = decide(parked(good), s, false);
  EXPECT_EQ(away.target_topic, "elsewhere");
  EXPECT_EQ(away.target_partition, -1);
}

TEST(Plan, TheLedgerWinsOverEverything) {
  EXPECT_EQ(decide(parked({{"courier.origin.partition", "x"}}), plan_settings{}, true).what,
            decision::action::already_redriven);
}

TEST(Plan, MissingOriginTopicIsMalformedWithoutTo) {
  const decision d = decide(parked({{"courier.error.class", "c"}}), plan_settings{}, false);
  EXPECT_EQ(d.what, decision::action::malformed);
  EXPECT_NE(d.reason.find("courier.origin.topic"), std::string::npos) << d.reason;
  plan_settings s;
  s.to = "t";
  EXPECT_EQ(decide(parked({{"courier.error.class", "c"}}), s, false).what, decision::action::move);
}

TEST(Plan, LoopGuardRefusesAtTheLimit) {
  header_list h = good;
  h.emplace_back("courier.redrive.count", "3");
  const decision d = decide(parked(h), plan_settings{}, false);
  EXPECT_EQ(d.what, decision::action::refused);
  plan_settings forced;
  forced.force = true;
  EXPECT_EQ(decide(parked(h), forced, false).what, decision::action::move);
}

TEST(Plan, FilteredOutBeforeMalformed) {
  plan_settings s;
  s.select.error_classes = {"timeout"};
  EXPECT_EQ(
      decide(parked({{"courier.error.class", "c"}, {"courier.origin.partition", "x"}}), s, false)
          .what,
      decision::action::filtered_out);
}

TEST(Plan, AnOriginTopicThatIsNoSourceOfTheDlqsRoutesIsRefusedUnlessToNamesATarget) {
  plan_settings s;
  s.home = std::set<std::string>{"brew.shipments.v1"};
  const decision foreign = decide(parked(good), s, false);  // origin "o"
  EXPECT_EQ(foreign.what, decision::action::refused);
  EXPECT_NE(foreign.reason.find("not a source of this DLQ's routes (brew.shipments.v1)"),
            std::string::npos)
      << foreign.reason;
  s.home = std::set<std::string>{"o"};
  EXPECT_EQ(decide(parked(good), s, false).what, decision::action::move);
  s.home = std::set<std::string>{"brew.shipments.v1"};
  s.to = "o";
  EXPECT_EQ(decide(parked(good), s, false).what, decision::action::move) << "--to names it";
}

}  // namespace
}  // namespace courier::redrive
