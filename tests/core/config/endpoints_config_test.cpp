// routes[].endpoints, endpoint_from and on_unknown_endpoint (core/config): a route's endpoints
// take what they leave out from their route, after the environment's overrides; everything is
// checked when the file is read, each error naming the endpoint's key.

#include <chrono>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/config/config.hpp"
#include "tests/core/config/config_error_of.hpp"

namespace courier {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::error_of;

json three_partners() {
  return {{"name", "shipments"},
          {"topic", "brew.shipments.v1"},
          {"hmac_secret", "route-secret"},
          {"breaker", {{"trip_after", 7}}},
          {"endpoints",
           {{{"name", "acme"},
             {"url", "https://acme.example/hooks"},
             {"filter", {{"header", "x-partner"}, {"equals", "acme"}}}},
            {{"name", "zoom"},
             {"url", "https://zoom.example/in"},
             {"hmac_secret", "zoom-secret"},
             {"breaker", {{"open_timeout", "2s"}}},
             {"filter", {{"json", "/partner"}, {"in", {"zoom", "zoomer"}}}}},
            {{"name", "analytics"}, {"url", "https://hooks.internal/all"}}}}};
}

json doc_with(const json& route) { return {{"routes", json::array({route})}}; }

config_error validate_error_of(const json& doc) {
  return error_of([&] { validate(parse_config(doc)); });
}

TEST(EndpointsConfig, AnEndpointTakesWhatItLeavesOutFromItsRoute) {
  const auto cfg = parse_config(doc_with(three_partners()));
  validate(cfg);
  const auto endpoints = endpoints_of(cfg.routes[0]);
  ASSERT_EQ(endpoints.size(), 3U);
  EXPECT_EQ(endpoints[0].name, "acme");
  EXPECT_EQ(endpoints[0].settings.url, "https://acme.example/hooks");
  EXPECT_EQ(endpoints[0].settings.hmac_secret, "route-secret");
  EXPECT_EQ(endpoints[0].settings.breaker.trip_after, 7);
  EXPECT_EQ(endpoints[1].settings.hmac_secret, "zoom-secret");
  EXPECT_EQ(endpoints[1].settings.breaker.trip_after, 7) << "its breaker's keys over the route's";
  EXPECT_EQ(endpoints[1].settings.breaker.open_timeout, milliseconds{2000});
  EXPECT_EQ(endpoints[0].settings.name, "shipments") << "its settings are its route's";
  EXPECT_TRUE(endpoints[0].filter.has_value());
  EXPECT_FALSE(endpoints[2].filter.has_value()) << "no filter: every record";
}

TEST(EndpointsConfig, TheEnvironmentsSecretServesEveryEndpointThatSetsNoneOfItsOwn) {
  auto cfg = parse_config(doc_with(three_partners()));
  config_overrides o;
  o.hmac_secret = "from-the-environment";
  apply_overrides(cfg, o);
  const auto endpoints = endpoints_of(cfg.routes[0]);
  EXPECT_EQ(endpoints[0].settings.hmac_secret, "from-the-environment");
  EXPECT_EQ(endpoints[1].settings.hmac_secret, "zoom-secret");
}

TEST(EndpointsConfig, ARouteWithAUrlIsOneEndpointNamedAfterIt) {
  const auto cfg = parse_config(doc_with({{"name", "shipments"},
                                          {"topic", "brew.shipments.v1"},
                                          {"url", "http://127.0.0.1:8090/deliver"},
                                          {"hmac_secret", "s"}}));
  const auto endpoints = endpoints_of(cfg.routes[0]);
  ASSERT_EQ(endpoints.size(), 1U);
  EXPECT_EQ(endpoints[0].name, "shipments");
  EXPECT_EQ(endpoints[0].settings.url, "http://127.0.0.1:8090/deliver");
}

TEST(EndpointsConfig, AUrlBesideEndpointsIsRefused) {
  auto route = three_partners();
  route["url"] = "https://acme.example/hooks";
  const auto e = validate_error_of(doc_with(route));
  EXPECT_EQ(e.key(), "routes[0].url");
  EXPECT_THAT(e.problem(), HasSubstr("either url"));
}

TEST(EndpointsConfig, AnEndpointWithoutAUrlIsRefusedNamingIt) {
  auto route = three_partners();
  route["endpoints"][2].erase("url");
  const auto e = validate_error_of(doc_with(route));
  EXPECT_EQ(e.key(), "routes[0].endpoints[2].url");
}

TEST(EndpointsConfig, TwoEndpointsOfOneNameAreRefused) {
  auto route = three_partners();
  route["endpoints"][2]["name"] = "acme";
  const auto e = validate_error_of(doc_with(route));
  EXPECT_EQ(e.key(), "routes[0].endpoints");
  EXPECT_THAT(e.what(), HasSubstr("\"acme\""));
}

TEST(EndpointsConfig, ANameThatCannotTravelInHeadersOrPathsIsRefused) {
  auto route = three_partners();
  route["endpoints"][0]["name"] = "acme/eu";
  EXPECT_EQ(validate_error_of(doc_with(route)).key(), "routes[0].endpoints[0].name");
}

TEST(EndpointsConfig, ABadFilterIsRefusedWhenTheFileIsReadNamingWhereInIt) {
  auto route = three_partners();
  route["endpoints"][0]["filter"] = {
      {"all", {{{"header", "a"}, {"equals", "b"}}, {{"header", "c"}}}}};
  const auto e = error_of([&] { parse_config(doc_with(route)); });
  EXPECT_EQ(e.key(), "routes[0].endpoints[0].filter.all[1]");
  EXPECT_THAT(e.problem(), HasSubstr("equals, in, exists"));
}

TEST(EndpointsConfig, AnUnknownKeyOfAnEndpointIsRefused) {
  auto route = three_partners();
  route["endpoints"][1]["topic"] = "other";
  const auto e = error_of([&] { parse_config(doc_with(route)); });
  EXPECT_THAT(e.what(), HasSubstr("routes[0].endpoints[1]"));
  EXPECT_THAT(e.what(), HasSubstr("topic"));
}

TEST(EndpointsConfig, SelectionTakesNoFiltersAndReadsItsUnknownAction) {
  auto route = three_partners();
  route["endpoint_from"] = {{"header", "x-partner"}};
  const auto e = validate_error_of(doc_with(route));
  EXPECT_THAT(e.what(), HasSubstr("takes no filter"));

  for (auto& endpoint : route["endpoints"]) {
    endpoint.erase("filter");
  }
  route["on_unknown_endpoint"] = "skip";
  const auto cfg = parse_config(doc_with(route));
  validate(cfg);
  EXPECT_EQ(cfg.routes[0].on_unknown_endpoint, routing::unknown_endpoint_action::skip);
  route["on_unknown_endpoint"] = "drop";
  EXPECT_THAT(error_of([&] { parse_config(doc_with(route)); }).problem(),
              HasSubstr("\"dead_letter\" or \"skip\""));
}

TEST(EndpointsConfig, AnEndpointsMaxInFlightIsAShareOfItsRoutes) {
  auto route = three_partners();
  route["max_in_flight"] = 100;
  route["endpoints"][1]["max_in_flight"] = 20;
  const auto cfg = parse_config(doc_with(route));
  validate(cfg);
  const auto endpoints = endpoints_of(cfg.routes[0]);
  EXPECT_EQ(endpoints[0].settings.max_in_flight, 100U);
  EXPECT_EQ(endpoints[1].settings.max_in_flight, 20U);
  route["endpoints"][1]["max_in_flight"] = 101;
  const auto e = validate_error_of(doc_with(route));
  EXPECT_EQ(e.key(), "routes[0].endpoints[1].max_in_flight");
  EXPECT_THAT(e.problem(), HasSubstr("share"));
}

TEST(EndpointsConfig, KeyOrderNeedsOneEndpointPerRecordAutoRedriveIsPerEndpoint) {
  auto route = three_partners();
  route["ordering"] = "key";
  const auto e = validate_error_of(doc_with(route));
  EXPECT_EQ(e.key(), "routes[0].ordering");
  EXPECT_THAT(e.problem(), HasSubstr("needs endpoint_from"));
  auto selected = route;
  selected["endpoint_from"] = {{"header", "x-partner"}};
  for (auto& endpoint : selected["endpoints"]) {
    endpoint.erase("filter");
  }
  EXPECT_NO_THROW(validate(parse_config(doc_with(selected))))
      << "one endpoint per record: its key is ordered within that endpoint";
  route.erase("ordering");
  route["auto_redrive"] = json::object();
  const auto cfg = parse_config(doc_with(route));
  EXPECT_NO_THROW(validate(cfg)) << "each endpoint's breaker drives an auto-redrive of its own";
}

TEST(EndpointsConfig, ConfigCheckPrintsEachEndpointWithItsUrlAndFilter) {
  const auto cfg = parse_config(doc_with(three_partners()));
  std::string text;
  for (const auto& line : describe_endpoints(cfg.routes[0])) {
    text += line + "\n";
  }
  EXPECT_THAT(text, HasSubstr("endpoint acme: https://acme.example:443"));
  EXPECT_THAT(text, HasSubstr("filter: header \"x-partner\" equals \"acme\""));
  EXPECT_THAT(text, HasSubstr("filter: none (every record)"));
  EXPECT_THAT(text, Not(HasSubstr("zoom-secret")));
}

}  // namespace
}  // namespace courier
