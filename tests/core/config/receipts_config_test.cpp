#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config/config.hpp"
#include "tests/core/config/route_json.hpp"

// routes[].receipts_topic and routes[].receipts.response_headers.
namespace courier {
namespace {

using nlohmann::json;

using testing::parsed;
using testing::route;

// The error of a config with this one route.
std::string error_of(const json& r) { return testing::error_of({{"routes", json::array({r})}}); }

TEST(ReceiptsConfig, OffByDefault) {
  const auto cfg = parsed(route(json::object()));
  EXPECT_TRUE(cfg.routes[0].receipts_topic.empty());
  EXPECT_TRUE(topics_of(cfg.routes[0]).receipts.empty());
  EXPECT_EQ(topics_of(cfg.routes[0]).onward().size(), 4U) << "three tiers and the DLQ";
}

TEST(ReceiptsConfig, TheTopicIsProducedToAndTheHeadersAreKept) {
  const auto cfg = parsed(route({{"receipts_topic", "brew.shipments.receipts"},
                                 {"receipts", {{"response_headers", {"X-Request-Id"}}}}}));
  const auto& r = cfg.routes[0];
  EXPECT_EQ(r.receipts_topic, "brew.shipments.receipts");
  EXPECT_EQ(r.receipt_response_headers, std::vector<std::string>{"X-Request-Id"});
  const auto topics = topics_of(r);
  EXPECT_EQ(topics.receipts, "brew.shipments.receipts");
  EXPECT_EQ(topics.onward().back(), "brew.shipments.receipts") << "topics ensure creates it";
  EXPECT_EQ(topics.all().back(), "brew.shipments.receipts") << "preflight checks it exists";
  EXPECT_EQ(topics.consumed().size(), 4U) << "never consumed";
  EXPECT_EQ(error_of(route({{"receipts_topic", "brew.shipments.receipts"}})), "no error");
}

TEST(ReceiptsConfig, BadSettingsNameTheirKey) {
  EXPECT_EQ(error_of(route({{"receipts_topic", "brew.shipments.dlq"}})),
            "routes[0].receipts_topic: must be a topic of its own, not the route's "
            "\"brew.shipments.dlq\"");
  EXPECT_EQ(error_of(route({{"receipts_topic", "brew.shipments.v1.retry-30s"}})),
            "routes[0].receipts_topic: must be a topic of its own, not the route's "
            "\"brew.shipments.v1.retry-30s\"");
  EXPECT_EQ(error_of(route({{"receipts", {{"response_headers", {"X-Request-Id"}}}}})),
            "routes[0].receipts.response_headers: needs routes[].receipts_topic (receipts are "
            "off without it)");
  EXPECT_EQ(
      error_of(route({{"receipts_topic", "r"}, {"receipts", {{"response_headers", {"a b"}}}}})),
      "routes[0].receipts.response_headers[0]: is not a valid HTTP header name");
  EXPECT_THROW(parsed(route({{"receipts", {{"headers", {"X-Request-Id"}}}}})), config_error)
      << "an unknown key";
  EXPECT_THROW(parsed(route({{"receipts", "X-Request-Id"}})), config_error);
}

}  // namespace
}  // namespace courier
