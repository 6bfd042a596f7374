// The copies `courier replay` writes (core/replay/replay_copies.cpp): one per endpoint a record is
// for, to the first retry tier, due now, with the record's idempotency key and origin; none for
// an endpoint it is not for; the same range the same id.

#include "core/replay/replay_copies.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/retry/retry_headers.hpp"
#include "core/retry/retry_tiers.hpp"

namespace courier::replay {
namespace {

using namespace std::chrono_literals;

const std::string source = "brew.shipments.v1";

record shipment(std::int64_t offset, const std::string& partner) {
  record r;
  r.topic = source;
  r.partition = 2;
  r.offset = offset;
  r.key = "order-" + std::to_string(offset);
  r.value = R"({"id": 1})";
  r.timestamp_ms = 1'800'000'000'000;
  r.headers = {{"x-partner", partner},
               {"courier.attempts", "7"},          // a producer's forgery: not carried
               {"courier.endpoint", "analytics"},  // nor this
               {"traceparent", "00-abc-def-01"}};
  return r;
}

routing::endpoint_routing two_partners() {
  std::vector<routing::endpoint_rule> rules;
  rules.push_back(
      {"acme", routing::record_filter::parse({{"header", "x-partner"}, {"equals", "acme"}})});
  rules.push_back({"analytics", std::nullopt});
  return routing::endpoint_routing{std::move(rules), std::nullopt,
                                   routing::unknown_endpoint_action::dead_letter};
}

replay_target target(bool several = true) {
  return replay_target{"shipments", route_topics_named(source, {5s, 30s}, ""), several};
}

std::string header(const record& r, std::string_view name) {
  return std::string{find_header(r.headers, name).value_or("<absent>")};
}

TEST(ReplayCopies, OneCopyPerEndpointTheRecordIsForDueNowInTheFirstTier) {
  const auto copies =
      copies_of(shipment(42, "acme"), two_partners(), target(), std::nullopt, "replay-1", 1234);
  ASSERT_EQ(copies.size(), 2U);
  EXPECT_EQ(copies[0].endpoint, "acme");
  EXPECT_EQ(copies[1].endpoint, "analytics");
  const auto& c = copies[0].produce;
  EXPECT_EQ(c.topic, source + ".retry-5s");
  EXPECT_EQ(c.partition, 2);
  EXPECT_EQ(c.key, "order-42");
  EXPECT_EQ(c.value, R"({"id": 1})");
  EXPECT_EQ(header(c, idempotency_key_header), source + ":2:42") << "the record's own key";
  EXPECT_EQ(header(c, origin_topic_header), source);
  EXPECT_EQ(header(c, origin_offset_header), "42");
  EXPECT_EQ(header(c, attempts_header), "0") << "a producer's courier.attempts is not carried";
  EXPECT_EQ(header(c, retry_tier_header), "0");
  EXPECT_EQ(header(c, retry_due_header), "1234");
  EXPECT_EQ(header(c, replay_id_header), "replay-1");
  EXPECT_EQ(header(c, endpoint_header), "acme");
  EXPECT_EQ(header(copies[1].produce, endpoint_header), "analytics");
  EXPECT_EQ(header(c, "traceparent"), "00-abc-def-01") << "the record's own headers stay";
  EXPECT_EQ(copies[0].ledger_key, "replay-1/" + source + ":2:42/acme");
}

TEST(ReplayCopies, AnEndpointGetsOnlyTheRecordsItIsFor) {
  const auto for_acme = std::optional<std::string>{"acme"};
  EXPECT_EQ(copies_of(shipment(1, "acme"), two_partners(), target(), for_acme, "r", 0).size(), 1U);
  EXPECT_TRUE(copies_of(shipment(2, "zoom"), two_partners(), target(), for_acme, "r", 0).empty())
      << "never replayed to an endpoint the record was not for";
  const auto zoom = copies_of(shipment(2, "zoom"), two_partners(), target(), std::nullopt, "r", 0);
  ASSERT_EQ(zoom.size(), 1U);
  EXPECT_EQ(zoom[0].endpoint, "analytics");
}

TEST(ReplayCopies, ARouteWithOneEndpointNamesNone) {
  std::vector<routing::endpoint_rule> one{{"shipments", std::nullopt}};
  const routing::endpoint_routing routing{std::move(one), std::nullopt,
                                          routing::unknown_endpoint_action::dead_letter};
  const auto copies = copies_of(shipment(1, "acme"), routing, target(false), std::nullopt, "r", 0);
  ASSERT_EQ(copies.size(), 1U);
  EXPECT_EQ(header(copies[0].produce, endpoint_header), "<absent>");
}

TEST(ReplayCopies, ARouteWithoutTiersCannotBeReplayed) {
  auto t = target();
  t.topics.tiers.clear();
  EXPECT_THROW(copies_of(shipment(1, "acme"), two_partners(), t, std::nullopt, "r", 0),
               std::invalid_argument);
}

TEST(ReplayCopies, TheSameRangeHasTheSameIdAndAnotherRangeAnother) {
  const replay_range a{"shipments", std::string{"acme"}, 1000, 2000};
  EXPECT_EQ(replay_id(a), replay_id(a));
  EXPECT_EQ(replay_id(a).rfind("replay-", 0), 0U);
  EXPECT_EQ(replay_id(a).size(), 7U + 16U);
  auto later = a;
  later.since_ms = 1001;
  EXPECT_NE(replay_id(a), replay_id(later));
  auto every = a;
  every.endpoint.reset();
  EXPECT_NE(replay_id(a), replay_id(every));
}

}  // namespace
}  // namespace courier::replay
