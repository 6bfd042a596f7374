// The signing keys of a route: scheme, Standard Webhooks secrets, the secrets' files and
// environment variables, and the Idempotency-Key format (config_reader.cpp,
// config_validation.cpp, config.cpp).

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

const std::string secret_a = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const std::string secret_b = "whsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24=";  // 26 bytes

json route(json extra = json::object()) {
  json r = {{"name", "shipments"},
            {"topic", "brew.shipments.v1"},
            {"url", "http://127.0.0.1:8090/deliver"}};
  r.update(extra);
  return r;
}

courier_config parsed(const json& r) { return parse_config({{"routes", json::array({r})}}); }

using testing::error_of;

config_error validation_error(const json& r) {
  return error_of([&] { validate(parsed(r)); });
}

TEST(SigningConfig, DefaultsToXSignatureAndThePlainIdempotencyKey) {
  const auto cfg = parsed(route({{"hmac_secret", "s"}}));
  EXPECT_EQ(cfg.routes[0].signing.schemes,
            std::vector<signing_scheme>{signing_scheme::x_signature});
  EXPECT_TRUE(cfg.routes[0].signing.secrets.empty());
  EXPECT_EQ(cfg.routes[0].idempotency_key, idempotency_key_form::plain);
  EXPECT_NO_THROW(validate(cfg));
}

TEST(SigningConfig, ReadsStandardWebhooksWithSeveralSecretsForARotation) {
  const auto cfg = parsed(
      route({{"signing", {{"scheme", "standard-webhooks"}, {"secrets", {secret_a, secret_b}}}}}));
  const auto& r = cfg.routes[0];
  EXPECT_EQ(r.signing.schemes, std::vector<signing_scheme>{signing_scheme::standard_webhooks});
  EXPECT_EQ(r.signing.secrets, (std::vector<std::string>{secret_a, secret_b}));
  EXPECT_NO_THROW(validate(cfg)) << "no hmac_secret needed without x-signature";
}

TEST(SigningConfig, TakesBothSchemesAtOnceForAMigration) {
  const auto cfg = parsed(route(
      {{"hmac_secret", "s"},
       {"signing", {{"scheme", {"x-signature", "standard-webhooks"}}, {"secrets", {secret_a}}}}}));
  EXPECT_TRUE(signs_with(cfg.routes[0], signing_scheme::x_signature));
  EXPECT_TRUE(signs_with(cfg.routes[0], signing_scheme::standard_webhooks));
  EXPECT_NO_THROW(validate(cfg));
}

TEST(SigningConfig, NamesAnUnknownSchemeAnEmptyListAndARepeatedScheme) {
  EXPECT_EQ(error_of([] {
              parsed(route({{"signing", {{"scheme", "svix"}}}}));
            }).key(),
            "routes[0].signing.scheme");
  EXPECT_EQ(error_of([] {
              parsed(route({{"signing", {{"scheme", json::array()}}}}));
            }).key(),
            "routes[0].signing.scheme");
  EXPECT_EQ(error_of([] {
              parsed(route({{"signing", {{"scheme", {"x-signature", "x-signature"}}}}}));
            }).key(),
            "routes[0].signing.scheme[1]");
  EXPECT_EQ(error_of([] {
              parsed(route({{"signing", {{"schem", "x-signature"}}}}));
            }).key(),
            "routes[0].signing.schem");
}

TEST(SigningConfig, StandardWebhooksNeedsAtLeastOneSecret) {
  const auto e = validation_error(
      route({{"signing", {{"scheme", "standard-webhooks"}, {"secrets", json::array()}}}}));
  EXPECT_EQ(e.key(), "routes[0].signing.secrets");
  EXPECT_THAT(e.problem(), HasSubstr("STANDARD_WEBHOOKS_SECRETS"));
}

TEST(SigningConfig, NamesAMalformedWhsecSecretWithoutPrintingIt) {
  for (const std::string bad :
       {"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_MfKQ9r8G!!!", "whsec_c2hvcnQ="}) {
    const auto e = validation_error(
        route({{"signing", {{"scheme", "standard-webhooks"}, {"secrets", {secret_a, bad}}}}}));
    EXPECT_EQ(e.key(), "routes[0].signing.secrets[1]") << bad;
    EXPECT_THAT(e.what(), Not(HasSubstr(bad.substr(6))));
  }
}

TEST(SigningConfig, RefusesSecretsForARouteThatDoesNotSignWithStandardWebhooks) {
  EXPECT_EQ(
      validation_error(route({{"hmac_secret", "s"}, {"signing", {{"secrets", {secret_a}}}}})).key(),
      "routes[0].signing.secrets");
}

TEST(SigningConfig, ReadsTheSecretsFromAFileOneALine) {
  const temp_dir dir;
  const auto file = dir.write("whsec", secret_a + "\r\n\n" + secret_b + "\n");
  const auto cfg = parsed(
      route({{"signing", {{"scheme", "standard-webhooks"}, {"secrets_file", file.string()}}}}));
  EXPECT_EQ(cfg.routes[0].signing.secrets, (std::vector<std::string>{secret_a, secret_b}));
}

TEST(SigningConfig, ReadsHmacSecretFromItsFile) {
  const temp_dir dir;
  const auto file = dir.write("hmac", "from-a-file\n");
  EXPECT_EQ(parsed(route({{"hmac_secret_file", file.string()}})).routes[0].hmac_secret,
            "from-a-file");
}

TEST(SigningConfig, NamesTheKeyOfAnUnreadableOrEmptySecretFileAndRefusesBothForms) {
  const temp_dir dir;
  const auto missing = (dir.path() / "missing").string();
  EXPECT_EQ(error_of([&] {
              parsed(route({{"hmac_secret_file", missing}}));
            }).key(),
            "routes[0].hmac_secret_file");
  const auto empty = dir.write("empty", "\n\n").string();
  EXPECT_EQ(
      error_of([&] {
        parsed(route({{"signing", {{"scheme", "standard-webhooks"}, {"secrets_file", empty}}}}));
      }).key(),
      "routes[0].signing.secrets_file");
  EXPECT_EQ(error_of([&] {
              parsed(route({{"hmac_secret", "s"}, {"hmac_secret_file", missing}}));
            }).key(),
            "routes[0].hmac_secret_file");
  EXPECT_EQ(error_of([&] {
              parsed(route({{"signing", {{"secrets", {secret_a}}, {"secrets_file", empty}}}}));
            }).key(),
            "routes[0].signing.secrets_file");
}

TEST(SigningConfig, TakesTheSecretsFromTheEnvironmentForEveryStandardWebhooksRoute) {
  auto cfg = parse_config({{"routes",
                            {route({{"signing", {{"scheme", "standard-webhooks"}}}}),
                             route({{"name", "other"}, {"hmac_secret", "s"}})}}});
  apply_overrides(cfg, overrides_from_env(fake_env(
                           {{"STANDARD_WEBHOOKS_SECRETS", " " + secret_a + "  " + secret_b}})));
  EXPECT_EQ(cfg.routes[0].signing.secrets, (std::vector<std::string>{secret_a, secret_b}));
  EXPECT_TRUE(cfg.routes[1].signing.secrets.empty()) << "x-signature only: left alone";
  EXPECT_NO_THROW(validate(cfg));
}

TEST(SigningConfig, TakesTheSecretsFromTheFileTheEnvironmentNames) {
  const temp_dir dir;
  const auto file = dir.write("whsec", secret_b + "\n");
  const auto o = overrides_from_env(fake_env({{"STANDARD_WEBHOOKS_SECRETS_FILE", file.string()}}));
  EXPECT_EQ(o.standard_webhooks_secrets, std::vector<std::string>{secret_b});
  EXPECT_EQ(error_of([&] {
              overrides_from_env(fake_env({{"STANDARD_WEBHOOKS_SECRETS", secret_a},
                                           {"STANDARD_WEBHOOKS_SECRETS_FILE", file.string()}}));
            }).key(),
            "STANDARD_WEBHOOKS_SECRETS_FILE");
}

TEST(SigningConfig, AJsonSyntaxErrorNextToASecretDoesNotEchoIt) {
  const temp_dir dir;
  for (const std::string text : {"{\"routes\": [{\"hmac_secret\": \"topsecretvalue\n}]}",
                                 "{\"routes\": [{\"hmac_secret\": \"topsecretvalue\" x}]}"}) {
    const auto path = dir.write("bad.json", text);
    const auto e = error_of([&] { load_config_file(path); });
    EXPECT_EQ(e.key(), path.string());
    EXPECT_THAT(e.what(), HasSubstr("invalid JSON at byte"));
    EXPECT_THAT(e.what(), Not(HasSubstr("topsecretvalue")));
  }
}

TEST(SigningConfig, ReadsTheSfStringIdempotencyKeyFormatAndNamesABadOne) {
  EXPECT_EQ(parsed(route({{"idempotency_key_format", "sf-string"}})).routes[0].idempotency_key,
            idempotency_key_form::sf_string);
  EXPECT_EQ(error_of([] {
              parsed(route({{"idempotency_key_format", "quoted"}}));
            }).key(),
            "routes[0].idempotency_key_format");
}

TEST(SigningConfig, TopicsEnsureNeedsNoSecretButAGivenOneMustBeWellFormed) {
  const auto cfg = parsed(route({{"signing", {{"scheme", "standard-webhooks"}}}}));
  EXPECT_NO_THROW(validate(cfg, secret_check::optional));
  const auto bad =
      parsed(route({{"signing", {{"scheme", "standard-webhooks"}, {"secrets", {"whsec_x"}}}}}));
  EXPECT_EQ(error_of([&] { validate(bad, secret_check::optional); }).key(),
            "routes[0].signing.secrets[0]");
}

}  // namespace
}  // namespace courier
