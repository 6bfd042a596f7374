// topology/credentials: the first credential of each authenticated route, read or fetched
// before the pipeline starts, with the token endpoint behind the route's SSRF guard and TLS
// settings. A failure is a config_error naming the key, which `courier run` exits 2 with (the
// interop tests run that against a real authorization server).

#include "topology/credentials.hpp"

#include <string>

#include <gtest/gtest.h>

#include "tests/integration/stand.hpp"
#include "tests/support/temp_dir.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

courier_config with_route(route_config r) {
  courier_config cfg;
  cfg.routes.push_back(route_config{});
  cfg.routes.push_back(std::move(r));
  cfg.routes[0].name = "unauthenticated";
  return cfg;
}

route_config oauth2_route(const std::string& token_url) {
  route_config r;
  r.name = "shipments";
  r.http.timeout = 2000ms;
  oauth2_config o;
  o.token_url = token_url;
  o.client_id = "courier";
  o.client_secret = "never-logged";
  r.auth.oauth2 = o;
  return r;
}

// The config_error first_credentials throws ("" when none).
config_error refusal_of(const courier_config& cfg) {
  try {
    topology::first_credentials(cfg);
  } catch (const config_error& e) {
    return e;
  }
  return config_error{"", ""};
}

TEST(FirstCredentials, ReadsEachBearerTokenFileAndLeavesRoutesWithoutAuthOut) {
  const temp_dir dir{"credentials"};
  route_config r;
  r.name = "shipments";
  r.auth.bearer_token_file = dir.write("token", "abc.def\n").string();
  const auto got = topology::first_credentials(with_route(r));
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got.at("shipments").authorization, "Bearer abc.def");
}

TEST(FirstCredentials, AMissingOrEmptyTokenFileNamesItsKeyAndPath) {
  const temp_dir dir{"credentials"};
  route_config r;
  r.name = "shipments";
  r.auth.bearer_token_file = (dir.path() / "absent").string();
  auto e = refusal_of(with_route(r));
  EXPECT_EQ(e.key(), "routes[1].auth.bearer_token_file");
  EXPECT_EQ(e.problem(), r.auth.bearer_token_file + ": No such file or directory");
  r.auth.bearer_token_file = dir.write("empty", "\n").string();
  e = refusal_of(with_route(r));
  EXPECT_EQ(e.key(), "routes[1].auth.bearer_token_file");
  EXPECT_EQ(e.problem(), r.auth.bearer_token_file + ": is empty");
}

TEST(FirstCredentials, TheTokenEndpointIsBehindTheRoutesSsrfGuard) {
  // Loopback without allow_private_targets: refused before connecting, as a delivery would be.
  auto r = oauth2_route("http://127.0.0.1:1/token");
  const auto e = refusal_of(with_route(r));
  EXPECT_EQ(e.key(), "routes[1].auth.oauth2.token_url");
  EXPECT_NE(e.problem().find("the token endpoint did not answer"), std::string::npos)
      << e.problem();
  EXPECT_NE(e.problem().find("private"), std::string::npos) << e.problem();
  EXPECT_EQ(std::string{e.what()}.find("never-logged"), std::string::npos);
}

TEST(FirstCredentials, TheTokenEndpointIsVerifiedWithTheRoutesTlsSettings) {
  auto r = oauth2_route("https://127.0.0.1:1/token");
  r.tls.ca_file = "/nonexistent/ca.pem";
  const auto e = refusal_of(with_route(r));
  EXPECT_EQ(e.key(), "routes[1].auth.oauth2.token_url");
  EXPECT_NE(e.problem().find("/nonexistent/ca.pem"), std::string::npos) << e.problem();
}

TEST(FirstCredentials, AnEndpointThatAnswersNoTokenIsRefusedWithoutQuotingItsBody) {
  // The mock webhook is no token endpoint: whatever it answers holds no token.
  stand s{1};
  auto r = oauth2_route(s.receiver->url());
  r.allow_private_targets = true;
  const auto e = refusal_of(with_route(r));
  EXPECT_EQ(e.key(), "routes[1].auth.oauth2.token_url");
  EXPECT_EQ(e.problem().rfind("the token endpoint answered ", 0), 0U) << e.problem();
}

}  // namespace
}  // namespace courier::testing
