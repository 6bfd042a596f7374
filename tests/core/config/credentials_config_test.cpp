// Secrets in a route's config: a url from a file or variable, credentials over http:// refused
// unless allow_insecure_http, static header values checked like forwarded ones, and errors that
// show a URL as scheme://host:port only (config_reader.cpp, partner_contract.cpp,
// config_validation.cpp).

#include <cstdlib>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/config/config.hpp"
#include "tests/support/fake_env.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/core/config/config_error_of.hpp"

namespace courier {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using courier::testing::fake_env;
using courier::testing::temp_dir;

json route(const json& extra = json::object()) {
  json r = {{"name", "shipments"},
            {"topic", "brew.shipments.v1"},
            {"url", "https://hooks.example/services/T0/B0/SECRET"},
            {"hmac_secret", "s3cret"}};
  r.update(extra);
  return r;
}

json doc(const json& r) { return {{"routes", json::array({r})}}; }

using testing::error_of;

config_error validate_error_of(const json& r) {
  return error_of([&] { validate(parse_config(doc(r))); });
}

void expect_valid(const json& r) { EXPECT_NO_THROW(validate(parse_config(doc(r)))) << r.dump(); }

// -- the url as a secret ----------------------------------------------------------------------

TEST(RouteUrl, IsReadFromAFileTrimmed) {
  temp_dir dir{"url-secret"};
  const auto path = dir.write("url", "https://hooks.example/services/T0/B0/SECRET\n");
  const auto cfg = parse_config(doc(route({{"url", {{"file", path.string()}}}})));
  EXPECT_EQ(cfg.routes.at(0).url, "https://hooks.example/services/T0/B0/SECRET");
  EXPECT_EQ(cfg.routes.at(0).url_source, "file " + path.string());
}

TEST(RouteUrl, IsReadFromAnEnvironmentVariable) {
  ::setenv("COURIER_TEST_WEBHOOK_URL", "https://hooks.example/services/T0/B0/ENV", 1);
  const auto cfg = parse_config(doc(route({{"url", {{"env", "COURIER_TEST_WEBHOOK_URL"}}}})));
  ::unsetenv("COURIER_TEST_WEBHOOK_URL");
  EXPECT_EQ(cfg.routes.at(0).url, "https://hooks.example/services/T0/B0/ENV");
  EXPECT_EQ(cfg.routes.at(0).url_source, "env COURIER_TEST_WEBHOOK_URL");
}

TEST(RouteUrl, FromAFileThatIsADeviceIsRefusedNamingTheKey) {
  const auto e = error_of([] { parse_config(doc(route({{"url", {{"file", "/dev/zero"}}}}))); });
  EXPECT_EQ(e.key(), "routes[0].url.file");
}

TEST(RouteUrl, ABadOneIsShownWithoutItsPathOrQuery) {
  const auto e = validate_error_of(route({{"url", "ftp://hooks.example/services/T0/B0/SECRET"}}));
  EXPECT_EQ(e.key(), "routes[0].url");
  EXPECT_THAT(std::string{e.what()}, HasSubstr("ftp://hooks.example"));
  EXPECT_THAT(std::string{e.what()}, Not(HasSubstr("SECRET")));
}

TEST(RouteUrl, ABadWebhookUrlVariableIsShownWithoutItsPath) {
  const auto e = error_of([] {
    overrides_from_env(fake_env({{"WEBHOOK_URL", "ftp://h.example/SECRET"}}));
  });
  EXPECT_EQ(e.key(), "WEBHOOK_URL");
  EXPECT_THAT(std::string{e.what()}, Not(HasSubstr("SECRET")));
}

// -- credentials over http:// -----------------------------------------------------------------

TEST(CleartextCredentials, ABearerTokenToAnHttpUrlIsRefusedNamingTheKey) {
  const auto r = route({{"url", "http://127.0.0.1:8090/deliver"},
                        {"auth", {{"bearer_token_file", "/var/run/secrets/token"}}}});
  const auto e = validate_error_of(r);
  EXPECT_EQ(e.key(), "routes[0].auth.bearer_token_file");
  EXPECT_THAT(e.problem(), HasSubstr("routes[0].allow_insecure_http"));
}

TEST(CleartextCredentials, AnOauth2TokenUrlOverHttpIsRefusedEvenForAnHttpsUrl) {
  temp_dir dir{"cleartext"};
  const auto secret = dir.write("client-secret", "cs-1\n");
  const auto r = route({{"auth",
                         {{"oauth2",
                           {{"token_url", "http://auth.example/token"},
                            {"client_id", "courier"},
                            {"client_secret_file", secret.string()}}}}}});
  EXPECT_EQ(validate_error_of(r).key(), "routes[0].auth.oauth2.token_url");
}

TEST(CleartextCredentials, AnOauth2AccessTokenToAnHttpUrlIsRefused) {
  temp_dir dir{"cleartext"};
  const auto secret = dir.write("client-secret", "cs-1\n");
  const auto r = route({{"url", "http://partner.example/deliver"},
                        {"auth",
                         {{"oauth2",
                           {{"token_url", "https://auth.example/token"},
                            {"client_id", "courier"},
                            {"client_secret_file", secret.string()}}}}}});
  EXPECT_EQ(validate_error_of(r).key(), "routes[0].auth.oauth2");
}

TEST(CleartextCredentials, AHeaderFromAFileOrVariableToAnHttpUrlIsRefused) {
  temp_dir dir{"cleartext"};
  const auto key = dir.write("api-key", "k-1\n");
  auto r = route({{"url", "http://partner.example/deliver"},
                  {"headers", {{"X-Partner", "brew"}, {"X-Api-Key", {{"file", key.string()}}}}}});
  EXPECT_EQ(validate_error_of(r).key(), "routes[0].headers.X-Api-Key");
  ::setenv("COURIER_TEST_API_KEY", "k-2", 1);
  r["headers"] = {{"X-Api-Key", {{"env", "COURIER_TEST_API_KEY"}}}};
  EXPECT_EQ(validate_error_of(r).key(), "routes[0].headers.X-Api-Key");
  ::unsetenv("COURIER_TEST_API_KEY");
}

TEST(CleartextCredentials, AUrlFromASecretThatIsHttpIsRefused) {
  temp_dir dir{"cleartext"};
  const auto url = dir.write("url", "http://hooks.example/services/T0/B0/SECRET\n");
  const auto e = validate_error_of(route({{"url", {{"file", url.string()}}}}));
  EXPECT_EQ(e.key(), "routes[0].url");
  EXPECT_THAT(std::string{e.what()}, Not(HasSubstr("SECRET")));
}

TEST(CleartextCredentials, AreAllowedWhenTheRouteSaysSo) {
  temp_dir dir{"cleartext"};
  const auto key = dir.write("api-key", "k-1\n");
  const auto secret = dir.write("client-secret", "cs-1\n");
  expect_valid(route({{"url", "http://127.0.0.1:8090/deliver"},
                      {"allow_insecure_http", true},
                      {"headers", {{"X-Api-Key", {{"file", key.string()}}}}},
                      {"auth",
                       {{"oauth2",
                         {{"token_url", "http://127.0.0.1:8091/token"},
                          {"client_id", "courier"},
                          {"client_secret_file", secret.string()}}}}}}));
  expect_valid(route({{"url", "http://127.0.0.1:8090/deliver"},
                      {"allow_insecure_http", true},
                      {"auth", {{"bearer_token_file", "/var/run/secrets/token"}}}}));
}

TEST(CleartextCredentials, NoneAreNeededForAnHttpsUrlOrAnInlineHeader) {
  temp_dir dir{"cleartext"};
  const auto key = dir.write("api-key", "k-1\n");
  expect_valid(route({{"headers", {{"X-Api-Key", {{"file", key.string()}}}}},
                      {"auth", {{"bearer_token_file", "/var/run/secrets/token"}}}}));
  expect_valid(
      route({{"url", "http://127.0.0.1:8090/deliver"}, {"headers", {{"X-Partner", "brew"}}}}));
}

TEST(CleartextCredentials, AllowInsecureHttpMustBeABoolean) {
  const auto e = error_of([] { parse_config(doc(route({{"allow_insecure_http", "yes"}}))); });
  EXPECT_EQ(e.key(), "routes[0].allow_insecure_http");
}

// -- static header values ---------------------------------------------------------------------

TEST(StaticHeaderValue, WithAControlByteIsRefusedNamingTheKeyNotTheValue) {
  for (const std::string bad : {"top\fsecret", "top\x7fsecret", "top\x01secret", "top\xc3\xa9"}) {
    const auto e = validate_error_of(route({{"headers", {{"X-Api-Key", bad}}}}));
    EXPECT_EQ(e.key(), "routes[0].headers.X-Api-Key");
    EXPECT_THAT(std::string{e.what()}, Not(HasSubstr("top")));
  }
}

TEST(StaticHeaderValue, OfVisibleAsciiSpaceAndTabIsAccepted) {
  expect_valid(route({{"headers", {{"X-Partner", "brew co\tv=1; q=\"x\""}}}}));
}

}  // namespace
}  // namespace courier
