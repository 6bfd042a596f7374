// The fan-out of a route with several endpoints (core/routing/endpoint_fanout.cpp): copies to the
// endpoints a record is for, each naming its endpoint; one joined outcome once every copy has
// its own; a retry tier's copy to its named endpoint alone; a name on the source only narrowing.

#include "core/routing/endpoint_fanout.hpp"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace courier::routing {
namespace {

const std::string source = "brew.shipments.v1";
const std::string tier = "brew.shipments.v1.retry-5s";

record make_record(std::int64_t offset, std::string partner, std::string topic = source) {
  record r;
  r.topic = std::move(topic);
  r.partition = 0;
  r.offset = offset;
  r.value = R"({"id": 1})";
  r.headers.emplace_back("x-partner", std::move(partner));
  return r;
}

endpoint_fanout fan_out_by_partner(bool receipts = false) {
  std::vector<endpoint_rule> rules;
  rules.push_back({"acme", record_filter::parse({{"header", "x-partner"}, {"equals", "acme"}})});
  rules.push_back(
      {"zoom", record_filter::parse({{"header", "x-partner"}, {"in", {"zoom", "acme"}}})});
  rules.push_back({"analytics", std::nullopt});
  return endpoint_fanout{
      endpoint_routing{std::move(rules), std::nullopt, unknown_endpoint_action::dead_letter},
      source, receipts};
}

delivery_outcome ended(const record_position& at, delivery_end how, int attempts = 1) {
  return delivery_outcome{at, how, attempts, how == delivery_end::delivered ? 200 : 503,
                          how == delivery_end::delivered ? "" : "http_503"};
}

std::string endpoint_of(const record& r) {
  return std::string{find_header(r.headers, endpoint_header).value_or("")};
}

TEST(EndpointFanout, ARecordGoesToEveryEndpointWhoseFilterMatchesEachCopyNamingItsEndpoint) {
  auto f = fan_out_by_partner();
  const auto d = f.on_records({make_record(1, "acme"), make_record(2, "zoom")});
  ASSERT_EQ(d.deliver.size(), 3U);
  ASSERT_EQ(d.deliver[0].size(), 1U);
  EXPECT_EQ(d.deliver[0][0].offset, 1);
  EXPECT_EQ(endpoint_of(d.deliver[0][0]), "acme");
  ASSERT_EQ(d.deliver[1].size(), 2U);
  EXPECT_EQ(endpoint_of(d.deliver[1][1]), "zoom");
  EXPECT_EQ(d.deliver[2].size(), 2U) << "an endpoint without a filter gets every record";
  EXPECT_TRUE(d.done.empty());
  EXPECT_EQ(f.pending(), 2U);
}

TEST(EndpointFanout, TheRecordsOutcomeComesOnceEveryCopyHasOneAndTheWorstEndWins) {
  auto f = fan_out_by_partner();
  auto d = f.on_records({make_record(1, "acme")});
  const auto at = d.deliver[0][0].position();
  EXPECT_FALSE(f.on_outcome(ended(at, delivery_end::delivered)));
  EXPECT_FALSE(f.on_outcome(ended(at, delivery_end::retried, 3)));
  const auto joined = f.on_outcome(ended(at, delivery_end::delivered));
  ASSERT_TRUE(joined);
  EXPECT_EQ(joined->end, delivery_end::retried);
  EXPECT_EQ(joined->attempts, 5);
  EXPECT_EQ(joined->error_class, "http_503");
  EXPECT_EQ(f.pending(), 0U);
  EXPECT_FALSE(f.on_outcome(ended(at, delivery_end::delivered))) << "a late copy changes nothing";
}

TEST(EndpointFanout, ARecordForNoEndpointIsFilteredAtOnce) {
  std::vector<endpoint_rule> rules;
  rules.push_back({"acme", record_filter::parse({{"header", "x-partner"}, {"equals", "acme"}})});
  endpoint_fanout f{
      endpoint_routing{std::move(rules), std::nullopt, unknown_endpoint_action::dead_letter},
      source};
  const auto d = f.on_records({make_record(7, "nobody")});
  EXPECT_TRUE(d.deliver[0].empty());
  ASSERT_EQ(d.done.size(), 1U);
  EXPECT_EQ(d.done[0].end, delivery_end::filtered);
  EXPECT_EQ(d.done[0].record.offset, 7);
  EXPECT_EQ(f.pending(), 0U);
}

TEST(EndpointFanout, ATiersCopyGoesToTheEndpointItNamesAloneAndAnUnknownNameIsDeadLettered) {
  auto f = fan_out_by_partner();
  auto copy = make_record(3, "acme", tier);
  copy.headers.emplace_back(std::string{endpoint_header}, "zoom");
  auto gone = make_record(4, "acme", tier);
  gone.headers.emplace_back(std::string{endpoint_header}, "removed");
  const auto d = f.on_records({copy, gone});
  EXPECT_TRUE(d.deliver[0].empty());
  ASSERT_EQ(d.deliver[1].size(), 1U);
  EXPECT_EQ(d.deliver[1][0].offset, 3);
  EXPECT_TRUE(d.deliver[2].empty());
  ASSERT_EQ(d.dead_letter.size(), 1U);
  EXPECT_EQ(d.dead_letter[0].offset, 4);
  const auto joined = f.on_outcome(ended(d.dead_letter[0].position(), delivery_end::dead_lettered));
  ASSERT_TRUE(joined);
  EXPECT_EQ(joined->end, delivery_end::dead_lettered);
}

TEST(EndpointFanout, OnTheSourceANamedEndpointOnlyNarrowsWhatTheFiltersChose) {
  auto f = fan_out_by_partner();
  auto redriven = make_record(5, "acme");
  redriven.headers.emplace_back(std::string{endpoint_header}, "acme");
  auto forged = make_record(6, "nobody");
  forged.headers.emplace_back(std::string{endpoint_header}, "acme");
  const auto d = f.on_records({redriven, forged});
  ASSERT_EQ(d.deliver[0].size(), 1U);
  EXPECT_EQ(d.deliver[0][0].offset, 5);
  EXPECT_TRUE(d.deliver[1].empty()) << "acme's redriven record goes to acme only";
  EXPECT_TRUE(d.deliver[2].empty());
  ASSERT_EQ(d.done.size(), 1U) << "a name the filters did not choose sends the record nowhere";
  EXPECT_EQ(d.done[0].record.offset, 6);
  EXPECT_EQ(d.done[0].end, delivery_end::filtered);
}

TEST(EndpointFanout, SelectionSendsTheOneNamedEndpointAndDeadLettersOrSkipsAnUnknownName) {
  const auto make = [](unknown_endpoint_action on_unknown) {
    std::vector<endpoint_rule> rules{{"acme", std::nullopt}, {"zoom", std::nullopt}};
    return endpoint_fanout{
        endpoint_routing{std::move(rules), endpoint_selector::parse({{"header", "x-partner"}}),
                         on_unknown},
        source};
  };
  auto dead = make(unknown_endpoint_action::dead_letter);
  const auto d = dead.on_records({make_record(1, "zoom"), make_record(2, "nobody")});
  EXPECT_TRUE(d.deliver[0].empty());
  ASSERT_EQ(d.deliver[1].size(), 1U);
  ASSERT_EQ(d.dead_letter.size(), 1U);
  EXPECT_EQ(d.dead_letter[0].offset, 2);
  auto skip = make(unknown_endpoint_action::skip);
  const auto s = skip.on_records({make_record(2, "nobody")});
  EXPECT_TRUE(s.dead_letter.empty());
  ASSERT_EQ(s.done.size(), 1U);
  EXPECT_EQ(s.done[0].end, delivery_end::filtered);
}

TEST(EndpointFanout, ARecordFetchedAgainWhileItsCopiesAreOutIsReportedOnceAllOfThemEnded) {
  auto f = fan_out_by_partner();
  const auto first = f.on_records({make_record(1, "nobody")});   // analytics only
  const auto second = f.on_records({make_record(1, "nobody")});  // fetched again
  const auto at = first.deliver[2][0].position();
  EXPECT_FALSE(f.on_outcome(ended(at, delivery_end::delivered)));
  EXPECT_TRUE(f.on_outcome(ended(at, delivery_end::delivered)));
  EXPECT_EQ(second.deliver[2].size(), 1U);
}

// With receipts, a record whose copies were all answered 2xx, or have their outcome, awaits
// only receipts: named once for its consumer, which lets it out of the route's bound.
TEST(EndpointFanout, ARecordAwaitsItsReceiptsOnceEveryCopyWasAnsweredOrHasItsOutcome) {
  auto f = fan_out_by_partner(/*receipts=*/true);
  auto d = f.on_records({make_record(1, "acme"), make_record(2, "nobody")});
  const auto at = d.deliver[0][0].position();     // to acme, zoom and analytics
  const auto other = d.deliver[2][1].position();  // to analytics alone
  f.on_answered(at);
  EXPECT_TRUE(f.take_answered().empty()) << "zoom and analytics still wait for an answer";
  EXPECT_FALSE(f.on_outcome(ended(at, delivery_end::retried)));  // zoom's moved to a tier
  EXPECT_TRUE(f.take_answered().empty());
  f.on_answered(at);  // analytics answered
  EXPECT_EQ(f.take_answered(), std::vector<record_position>{at});
  f.on_answered(at);
  EXPECT_TRUE(f.take_answered().empty()) << "named once";
  EXPECT_FALSE(f.on_outcome(ended(at, delivery_end::delivered)));  // acme's receipt is in
  ASSERT_TRUE(f.on_outcome(ended(at, delivery_end::delivered)));
  EXPECT_TRUE(f.take_answered().empty());

  f.on_answered(other);
  EXPECT_EQ(f.take_answered(), std::vector<record_position>{other}) << "its one copy answered";
  ASSERT_TRUE(f.on_outcome(ended(other, delivery_end::delivered)));
  f.on_answered(other);
  EXPECT_TRUE(f.take_answered().empty()) << "joined: a late notice changes nothing";
}

}  // namespace
}  // namespace courier::routing
