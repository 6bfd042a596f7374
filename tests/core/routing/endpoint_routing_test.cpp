// Which of a route's endpoints a record goes to (core/routing/endpoint_routing.cpp): fan-out by
// the endpoints' filters, selection by endpoint_from, and the configurations refused.

#include "core/routing/endpoint_routing.hpp"

#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/routing/spec_error.hpp"
#include "tests/core/routing/a_record.hpp"

namespace courier::routing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using nlohmann::json;

endpoint_rule rule(std::string name, const char* filter_spec = nullptr) {
  endpoint_rule r;
  r.name = std::move(name);
  if (filter_spec != nullptr) {
    r.filter = record_filter::parse(json::parse(filter_spec));
  }
  return r;
}

endpoint_routing fan_out(std::vector<endpoint_rule> rules) {
  return endpoint_routing{std::move(rules), std::nullopt, unknown_endpoint_action::dead_letter};
}

endpoint_routing selection(const char* from, unknown_endpoint_action on_unknown) {
  return endpoint_routing{{rule("acme"), rule("globex"), rule("initech")},
                          endpoint_selector::parse(json::parse(from)),
                          on_unknown};
}

// The error a routing is refused with; a failure when it is accepted.
spec_error refusal(std::vector<endpoint_rule> rules, std::optional<endpoint_selector> from) {
  try {
    endpoint_routing{std::move(rules), std::move(from), unknown_endpoint_action::skip};
  } catch (const spec_error& e) {
    return e;
  }
  ADD_FAILURE() << "accepted";
  return spec_error{"", "accepted"};
}

TEST(EndpointRouting, FanOutSendsARecordToEachEndpointWhoseFilterMatches) {
  const auto routing = fan_out({rule("orders", R"({"json": "/type", "equals": "order"})"),
                                rule("refunds", R"({"json": "/type", "equals": "refund"})")});
  EXPECT_TRUE(routing.fans_out());
  EXPECT_THAT(routing.route(a_record(R"({"type": "order"})")).endpoints, ElementsAre(0));
  EXPECT_THAT(routing.route(a_record(R"({"type": "refund"})")).endpoints, ElementsAre(1));
  EXPECT_EQ(routing.route(a_record(R"({"type": "order"})")).unknown, std::nullopt);
}

TEST(EndpointRouting, OverlappingFiltersSendTheRecordToAllTheirEndpointsInOrder) {
  const auto routing = fan_out({rule("eu", R"({"key_prefix": "eu:"})"),
                                rule("audit", R"({"header": "audit", "exists": true})"),
                                rule("big", R"({"json": "/n", "in": [100, 1000]})")});
  EXPECT_THAT(routing.route(a_record(R"({"n": 100})", "eu:1", {{"audit", "1"}})).endpoints,
              ElementsAre(0, 1, 2));
  EXPECT_THAT(routing.route(a_record(R"({"n": 1000})", "us:1")).endpoints, ElementsAre(2));
  EXPECT_THAT(routing.route(a_record("not json", "eu:1")).endpoints, ElementsAre(0));
}

TEST(EndpointRouting, AnEndpointWithoutAFilterGetsEveryRecord) {
  const auto routing = fan_out({rule("eu", R"({"key_prefix": "eu:"})"), rule("archive")});
  EXPECT_THAT(routing.route(a_record("", "eu:1")).endpoints, ElementsAre(0, 1));
  EXPECT_THAT(routing.route(a_record("", std::nullopt)).endpoints, ElementsAre(1));
}

TEST(EndpointRouting, ARecordThatMatchesNoFilterGoesToNone) {
  const auto routing =
      fan_out({rule("eu", R"({"key_prefix": "eu:"})"), rule("us", R"({"key_prefix": "us:"})")});
  const auto decision = routing.route(a_record("", "jp:1"));
  EXPECT_THAT(decision.endpoints, IsEmpty());
  EXPECT_EQ(decision.unknown, std::nullopt) << "fan-out knows no unknown endpoint";
}

TEST(EndpointRouting, SelectionSendsARecordToTheEndpointItNames) {
  const auto routing = selection(R"({"header": "x-partner"})", unknown_endpoint_action::skip);
  EXPECT_FALSE(routing.fans_out());
  EXPECT_EQ(routing.on_unknown(), unknown_endpoint_action::skip);
  const auto decision = routing.route(a_record("", std::nullopt, {{"x-partner", "initech"}}));
  EXPECT_THAT(decision.endpoints, ElementsAre(2));
  EXPECT_EQ(decision.unknown, std::nullopt);
}

TEST(EndpointRouting, ANameNoEndpointHasIsUnknownWithTheNameRead) {
  const auto routing =
      selection(R"({"key_prefix_until": ":"})", unknown_endpoint_action::dead_letter);
  EXPECT_EQ(routing.on_unknown(), unknown_endpoint_action::dead_letter);
  const auto decision = routing.route(a_record("", "hooli:1"));
  EXPECT_THAT(decision.endpoints, IsEmpty());
  EXPECT_EQ(decision.unknown, "hooli");
}

TEST(EndpointRouting, ARecordThatNamesNothingIsUnknownWithAnEmptyName) {
  const auto routing = selection(R"({"json": "/partner"})", unknown_endpoint_action::skip);
  for (const char* body : {R"({"partner": 7})", R"({})", "not json"}) {
    const auto decision = routing.route(a_record(body));
    EXPECT_THAT(decision.endpoints, IsEmpty()) << body;
    EXPECT_EQ(decision.unknown, "") << body;
  }
  EXPECT_THAT(routing.route(a_record(R"({"partner": "globex"})")).endpoints, ElementsAre(1));
}

TEST(EndpointRouting, IndexOfFindsAnEndpointByName) {
  const auto routing = selection(R"({"header": "x-partner"})", unknown_endpoint_action::skip);
  EXPECT_EQ(routing.index_of("acme"), 0U);
  EXPECT_EQ(routing.index_of("initech"), 2U);
  EXPECT_EQ(routing.index_of("hooli"), std::nullopt);
  ASSERT_EQ(routing.rules().size(), 3U);
  EXPECT_EQ(routing.rules()[1].name, "globex");
}

TEST(EndpointRouting, TwoEndpointsOfOneNameAreRefused) {
  const auto e = refusal({rule("acme"), rule("globex"), rule("acme")}, std::nullopt);
  EXPECT_EQ(e.path(), "name");
  EXPECT_EQ(e.problem(), R"("acme" names two endpoints (0 and 2))");
}

TEST(EndpointRouting, AFilterOnARouteWithEndpointFromIsRefused) {
  const auto e = refusal({rule("acme"), rule("globex", R"({"key_prefix": "g"})")},
                         endpoint_selector::parse(json::parse(R"({"header": "x-partner"})")));
  EXPECT_EQ(e.path(), "filter");
  EXPECT_STREQ(e.what(), "filter: an endpoint of a route with endpoint_from takes no filter");
}

}  // namespace
}  // namespace courier::routing
