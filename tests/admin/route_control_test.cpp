#include "admin/route_control.hpp"

#include <string>
#include <variant>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace courier::admin {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using nlohmann::json;

const std::string token = "s3cr3t-admin-token";
const std::vector<std::string> routes{"shipments", "a/b"};

std::variant<route_command, admin_reply> decide(std::string_view method, std::string_view target,
                                                std::string_view authorization,
                                                std::string_view configured = token) {
  return decide_route_control(admin_request{method, target, authorization}, configured, routes);
}

const std::string bearer = "Bearer " + token;

// The refusal a decision is; a failure (and an empty reply) when it let the request through.
admin_reply refusal_of(const std::variant<route_command, admin_reply>& d) {
  if (const auto* r = std::get_if<admin_reply>(&d)) {
    return *r;
  }
  ADD_FAILURE() << "allowed: " << std::get<route_command>(d).route;
  return {};
}

route_command command_of(const std::variant<route_command, admin_reply>& d) {
  if (const auto* c = std::get_if<route_command>(&d)) {
    return *c;
  }
  ADD_FAILURE() << "refused: " << std::get<admin_reply>(d).status << " "
                << std::get<admin_reply>(d).body;
  return {};
}

std::string header_of(const admin_reply& r, const std::string& name) {
  for (const auto& [n, v] : r.headers) {
    if (n == name) {
      return v;
    }
  }
  return {};
}

TEST(RouteControl, AnswersTheTargetsUnderRoutesOnly) {
  EXPECT_TRUE(is_route_control_target("/routes/shipments/pause"));
  EXPECT_TRUE(is_route_control_target("/routes/"));
  EXPECT_TRUE(is_route_control_target("/routes/x?y=1"));
  EXPECT_FALSE(is_route_control_target("/routes"));
  EXPECT_FALSE(is_route_control_target("/state"));
  EXPECT_FALSE(is_route_control_target("/metrics?x=/routes/"));
}

TEST(RouteControl, ARightTokenPausesAndResumesTheNamedRoute) {
  auto c = command_of(decide("POST", "/routes/shipments/pause", bearer));
  EXPECT_EQ(c.route, "shipments");
  EXPECT_EQ(c.action, route_action::pause);
  c = command_of(decide("POST", "/routes/shipments/resume", bearer));
  EXPECT_EQ(c.route, "shipments");
  EXPECT_EQ(c.action, route_action::resume);
  EXPECT_EQ(command_of(decide("POST", "/routes/shipments/pause?now=1", bearer)).route, "shipments")
      << "a query is ignored";
  EXPECT_EQ(command_of(decide("POST", "/routes/shipments/pause", "bearer " + token)).route,
            "shipments")
      << "the scheme is case-insensitive (RFC 7235)";
}

TEST(RouteControl, AutoRedriveIsPreviewedWithGetAndStoppedWithPostBothWithTheToken) {
  auto c = command_of(decide("GET", "/routes/shipments/auto-redrive", bearer));
  EXPECT_EQ(c.route, "shipments");
  EXPECT_EQ(c.action, route_action::auto_redrive_preview);
  c = command_of(decide("POST", "/routes/shipments/auto-redrive/stop", bearer));
  EXPECT_EQ(c.action, route_action::auto_redrive_stop);
  EXPECT_EQ(command_of(decide("GET", "/routes/a%2Fb/auto-redrive", bearer)).route, "a/b");

  auto r = refusal_of(decide("POST", "/routes/shipments/auto-redrive", bearer));
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(header_of(r, "Allow"), "GET");
  r = refusal_of(decide("GET", "/routes/shipments/auto-redrive/stop", bearer));
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(header_of(r, "Allow"), "POST");
  EXPECT_EQ(refusal_of(decide("GET", "/routes/shipments/auto-redrive", "")).status, 401)
      << "the preview reads the DLQ: only for whoever has the token";
  EXPECT_EQ(refusal_of(decide("POST", "/routes/shipments/auto-redrive/stop", "", "")).status, 403);
  EXPECT_EQ(refusal_of(decide("POST", "/routes/shipments/auto-redrive/start", bearer)).status, 404);
}

TEST(RouteControl, AnEndpointOfARouteIsPausedAndResumedByItsPercentDecodedName) {
  auto c = command_of(decide("POST", "/routes/shipments/endpoints/zoom/pause", bearer));
  EXPECT_EQ(c.route, "shipments");
  EXPECT_EQ(c.action, route_action::endpoint_pause);
  EXPECT_EQ(c.endpoint, "zoom");
  c = command_of(decide("POST", "/routes/shipments/endpoints/zoom.eu/resume", bearer));
  EXPECT_EQ(c.action, route_action::endpoint_resume);
  EXPECT_EQ(c.endpoint, "zoom.eu");
  EXPECT_EQ(refusal_of(decide("GET", "/routes/shipments/endpoints/zoom/pause", bearer)).status,
            405);
  EXPECT_EQ(refusal_of(decide("POST", "/routes/shipments/endpoints//pause", bearer)).status, 404);
  EXPECT_EQ(refusal_of(decide("POST", "/routes/shipments/endpoints/zoom/stop", bearer)).status,
            404);
  EXPECT_EQ(refusal_of(decide("POST", "/routes/shipments/endpoints/zo%zz/pause", bearer)).status,
            400);
  EXPECT_EQ(refusal_of(decide("POST", "/routes/shipments/endpoints/zoom/pause", "")).status, 401);
  const auto done = render_route_controlled(c, {});
  EXPECT_EQ(done.status, 200);
  EXPECT_NE(done.body.find(R"("endpoint":"zoom.eu")"), std::string::npos) << done.body;
}

TEST(RouteControl, WithoutAConfiguredTokenEveryRequestIs403NamingTheSettings) {
  for (const std::string_view auth : {std::string_view{}, std::string_view{bearer}}) {
    const auto r = refusal_of(decide("POST", "/routes/shipments/pause", auth, ""));
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(r.content_type, "application/json");
    const auto why = json::parse(r.body).at("error").get<std::string>();
    EXPECT_THAT(why, HasSubstr("admin.token"));
    EXPECT_THAT(why, HasSubstr("--admin-token-file"));
  }
}

TEST(RouteControl, AMissingTokenIs401WithABearerChallenge) {
  const auto r = refusal_of(decide("POST", "/routes/shipments/pause", ""));
  EXPECT_EQ(r.status, 401);
  EXPECT_THAT(header_of(r, "WWW-Authenticate"), StartsWith("Bearer"));
  EXPECT_THAT(r.body, HasSubstr("Authorization: Bearer"));
}

TEST(RouteControl, AWrongTokenIs401AndNeverEchoesEitherToken) {
  for (const std::string& auth : std::vector<std::string>{
           "Bearer wrong", "Bearer " + token + "x", "Bearer " + token.substr(0, token.size() - 1),
           "Basic " + token, "Bearer  " + token, token, "Bearer "}) {
    const auto r = refusal_of(decide("POST", "/routes/shipments/resume", auth));
    EXPECT_EQ(r.status, 401) << auth;
    EXPECT_THAT(header_of(r, "WWW-Authenticate"), StartsWith("Bearer")) << auth;
    EXPECT_THAT(header_of(r, "WWW-Authenticate"), HasSubstr("invalid_token")) << auth;
    EXPECT_EQ(r.body.find(token), std::string::npos) << r.body;
    EXPECT_EQ(r.body.find("wrong"), std::string::npos) << r.body;
  }
}

TEST(RouteControl, AnUnknownRouteIs404OnlyForWhoeverHasTheToken) {
  auto r = refusal_of(decide("POST", "/routes/payments/pause", bearer));
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(json::parse(r.body).at("route"), "payments");
  r = refusal_of(decide("POST", "/routes/payments/pause", ""));
  EXPECT_EQ(r.status, 401) << "without the token the status says nothing about the route";
}

TEST(RouteControl, AnotherMethodIs405AllowingPost) {
  for (const char* method : {"GET", "HEAD", "PUT", "DELETE", "post"}) {
    const auto r = refusal_of(decide(method, "/routes/shipments/pause", bearer));
    EXPECT_EQ(r.status, 405) << method;
    EXPECT_EQ(header_of(r, "Allow"), "POST") << method;
  }
}

TEST(RouteControl, OtherPathsUnderRoutesAre404) {
  for (const char* target : {"/routes/", "/routes/shipments", "/routes/shipments/",
                             "/routes/shipments/stop", "/routes//pause", "/routes/shipments/pause/",
                             "/routes/shipments/pause/now", "/routes/x/y/pause"}) {
    EXPECT_EQ(refusal_of(decide("POST", target, bearer)).status, 404) << target;
  }
}

// A route name may hold any character: the name's segment is percent-decoded, so a route named
// "a/b" is /routes/a%2Fb/pause, and a bare "/" in it is a path separator (404 above).
TEST(RouteControl, TheNameIsPercentDecoded) {
  EXPECT_EQ(command_of(decide("POST", "/routes/a%2Fb/pause", bearer)).route, "a/b");
  EXPECT_EQ(command_of(decide("POST", "/routes/a%2fb/resume", bearer)).route, "a/b");
  EXPECT_EQ(command_of(decide("POST", "/routes/%73hipments/pause", bearer)).route, "shipments");
  for (const char* target : {"/routes/a%2/pause", "/routes/a%/pause", "/routes/%zzb/pause"}) {
    EXPECT_EQ(refusal_of(decide("POST", target, bearer)).status, 400) << target;
  }
  const auto r = refusal_of(decide("POST", "/routes/%FF%FE/pause", bearer));
  EXPECT_EQ(r.status, 404) << "a name that is no UTF-8 is answered, not thrown on";
  EXPECT_TRUE(json::accept(r.body)) << r.body;
}

TEST(RouteControl, BearerMatchesTheWholeTokenOnly) {
  EXPECT_TRUE(bearer_matches("Bearer abc", "abc"));
  EXPECT_TRUE(bearer_matches("BEARER abc", "abc"));
  EXPECT_FALSE(bearer_matches("Bearer abd", "abc"));
  EXPECT_FALSE(bearer_matches("Bearer ab", "abc"));
  EXPECT_FALSE(bearer_matches("Bearer abcd", "abc"));
  EXPECT_FALSE(bearer_matches("Bearer ", ""));
  EXPECT_FALSE(bearer_matches("", ""));
}

TEST(RouteControl, TheAnswerNamesTheRouteItsStateAndThePartitionsChanged) {
  auto r =
      render_route_controlled({"shipments", route_action::pause, {}}, {"brew.shipments.v1[0-3]"});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(json::parse(r.body), json({{"route", "shipments"},
                                       {"paused", true},
                                       {"partitions_changed", {"brew.shipments.v1[0-3]"}}}));
  r = render_route_controlled({"shipments", route_action::resume, {}}, {});
  EXPECT_EQ(json::parse(r.body).at("paused"), false);
  EXPECT_EQ(json::parse(r.body).at("partitions_changed"), json::array());
}

}  // namespace
}  // namespace courier::admin
