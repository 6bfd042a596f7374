// The one translator: each module's settings as a route's configuration gives them.

#include "topology/route_settings.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace courier::topology {
namespace {

using namespace std::chrono_literals;

route_config a_route() {
  route_config r;
  r.name = "shipments";
  r.topic = "brew.shipments.v1";
  r.url = "https://partner.example/hooks/T0/B0/SECRET";
  r.hmac_secret = "hmac";
  return r;
}

TEST(RouteSettings, SigningTakesTheSchemesTheirSecretsAndTheKeyForm) {
  auto r = a_route();
  r.signing.schemes = {signing_scheme::standard_webhooks};
  r.signing.secrets = {"whsec_a2V5"};
  r.idempotency_key = idempotency_key_form::sf_string;
  const auto s = signing_of(r);
  EXPECT_FALSE(s.x_signature);
  EXPECT_EQ(s.hmac_secret, "hmac");
  EXPECT_EQ(s.standard_webhooks_secrets, std::vector<std::string>{"whsec_a2V5"});
  EXPECT_EQ(s.key_form, idempotency_key_form::sf_string);

  r.signing.schemes = {signing_scheme::x_signature};
  const auto x_only = signing_of(r);
  EXPECT_TRUE(x_only.x_signature);
  EXPECT_TRUE(x_only.standard_webhooks_secrets.empty()) << "secrets of a scheme not used";
}

TEST(RouteSettings, TheAttemptPolicyGetsTheRouteItsTopicsHeadersAndTheUrlPathAsASecret) {
  auto r = a_route();
  r.headers = {{"X-Partner", "brew", "routes[0].headers"}};
  r.forward_record_headers = {"traceparent"};
  r.adaptive_concurrency = true;
  r.max_in_flight = 64;
  const auto s = attempt_policy_settings_of(r);
  EXPECT_EQ(s.route, "shipments");
  EXPECT_EQ(s.topics.source, "brew.shipments.v1");
  EXPECT_EQ(s.topics.dlq, topics_of(r).dlq);
  ASSERT_EQ(s.headers.fixed.size(), 1U);
  EXPECT_EQ(s.headers.fixed.front().first, "X-Partner");
  EXPECT_EQ(s.headers.forwarded, std::vector<std::string>{"traceparent"});
  ASSERT_TRUE(s.adaptive.has_value());
  EXPECT_EQ(s.adaptive->max_limit, 64);
  EXPECT_EQ(s.adaptive->initial_limit, 16);
  EXPECT_EQ(s.secrets, std::vector<std::string>{"/hooks/T0/B0/SECRET"})
      << "a Slack-style path is redacted from what the partner echoes";
  EXPECT_TRUE(s.instance.empty()) << "named only when receipts are written";
  EXPECT_FALSE(s.authenticated);

  r.receipts_topic = "brew.receipts";
  r.url = "https://partner.example/";
  const auto with_receipts = attempt_policy_settings_of(r);
  EXPECT_NE(with_receipts.instance.find(':'), std::string::npos) << "host:pid";
  EXPECT_TRUE(with_receipts.secrets.empty()) << "\"/\" is no secret";
}

TEST(RouteSettings, TheDeliveryPoolGetsItsOrderingAndAnswerGathering) {
  auto r = a_route();
  r.http.gather_answers = 3ms;
  EXPECT_FALSE(delivery_pool_settings_of(r).ordered);
  r.ordering.mode = ordering_mode::key;
  const auto s = delivery_pool_settings_of(r);
  EXPECT_TRUE(s.ordered);
  EXPECT_EQ(s.gather_answers, 3ms);
  EXPECT_EQ(s.policy.route, "shipments");
}

TEST(RouteSettings, TheTokenClientIsTheRoutesClientWithTwoConnections) {
  auto r = a_route();
  r.http.max_connections = 32;
  r.allow_private_targets = true;
  EXPECT_EQ(client_settings_of(r).max_connections, 32U);
  const auto t = token_client_settings(r);
  EXPECT_EQ(t.max_connections, 2U);
  EXPECT_TRUE(t.allow_private_targets);
}

TEST(RouteSettings, KeyOrderOnARouteWithSeveralEndpointsIsScopedToTheEndpointARecordGoesTo) {
  const nlohmann::json route{{"name", "shipments"},
                             {"topic", "brew.shipments.v1"},
                             {"hmac_secret", "hmac"},
                             {"ordering", "key"},
                             {"endpoint_from", {{"header", "x-partner"}}},
                             {"endpoints",
                              {{{"name", "acme"}, {"url", "https://acme.example/in"}},
                               {{"name", "zoom"}, {"url", "https://zoom.example/in"}}}}};
  auto cfg = parse_config(nlohmann::json{{"routes", {route}}});
  validate(cfg);
  const auto cs = consumer_actor_settings_of(cfg, cfg.routes[0], 1s);
  ASSERT_TRUE(cs.core.order_scope);
  record r;
  r.topic = "brew.shipments.v1";
  r.key = "ship-1";
  r.headers = {{"x-partner", "zoom"}};
  EXPECT_EQ(cs.core.order_scope(r), std::optional<std::string>{"zoom"});
  r.headers = {{"x-partner", "nobody"}};
  EXPECT_EQ(cs.core.order_scope(r), std::nullopt) << "for no endpoint: unordered";
  r.topic = "brew.shipments.v1.retry-5s";
  r.headers = {{"courier.endpoint", "acme"}};
  EXPECT_EQ(cs.core.order_scope(r), std::optional<std::string>{"acme"}) << "a tier copy's own";

  cfg.routes[0].endpoints.resize(1);
  EXPECT_FALSE(consumer_actor_settings_of(cfg, cfg.routes[0], 1s).core.order_scope)
      << "one endpoint: the route's order, as before";
}

}  // namespace
}  // namespace courier::topology
