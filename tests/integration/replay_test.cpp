// `courier replay`'s checks before it reads anything (docs/endpoints.md, "Replay"): an unknown
// route or endpoint is a configuration error naming its flag. The replay itself needs the
// broker's offsets by time, which librdkafka's mock cluster does not answer: tests/e2e/replay_test.

#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/replay_command.hpp"
#include "tests/integration/stand.hpp"

namespace courier::testing {
namespace {

// Two endpoints on addresses nothing answers: the checks come before anything is sent.
void use_two_endpoints(stand& s) {
  const nlohmann::json route{{"name", "shipments"},
                             {"topic", s.topic},
                             {"hmac_secret", test_secret()},
                             {"allow_private_targets", true},
                             {"retry_tiers", {"300ms", "600ms"}},
                             {"endpoints",
                              {{{"name", "acme"},
                                {"url", "http://127.0.0.1:1/acme"},
                                {"filter", {{"header", "x-partner"}, {"equals", "acme"}}}},
                               {{"name", "analytics"}, {"url", "http://127.0.0.1:1/analytics"}}}}};
  auto parsed = parse_config({{"kafka", {{"brokers", s.cfg.kafka.brokers}}}, {"routes", {route}}});
  s.cfg.routes = parsed.routes;
  validate(s.cfg);
}

TEST(Replay, AnUnknownEndpointOrRouteIsAConfigurationError) {
  stand s{1};
  use_two_endpoints(s);
  app::replay_options o;
  o.route = "shipments";
  o.endpoint = "zoom";
  o.since = "1h";
  std::ostringstream out;
  try {
    app::run_replay(s.cfg, o, out);
    ADD_FAILURE() << "an unknown endpoint was taken";
  } catch (const config_error& e) {
    EXPECT_EQ(e.key(), "--endpoint");
  }
  o.route = "returns";
  try {
    app::run_replay(s.cfg, o, out);
    ADD_FAILURE() << "an unknown route was taken";
  } catch (const config_error& e) {
    EXPECT_EQ(e.key(), "--route");
  }
}

}  // namespace
}  // namespace courier::testing
