#include "core/retry/retry_tiers.hpp"

#include <gtest/gtest.h>

namespace courier {
namespace {

using namespace std::chrono_literals;

const route_topics orders = route_topics_named("orders", {5s, 30s, 5min}, "orders.dlq");

TEST(RetryTiers, DefaultTierTopicsAreNamedAfterTheirDelay) {
  EXPECT_EQ(tier_topic("brew.shipments.v1", 5s), "brew.shipments.v1.retry-5s");
  EXPECT_EQ(tier_topic("brew.shipments.v1", 30s), "brew.shipments.v1.retry-30s");
  EXPECT_EQ(tier_topic("brew.shipments.v1", 5min), "brew.shipments.v1.retry-5m");
}

TEST(RetryTiers, OddDelaysUseTheShortestExactForm) {
  EXPECT_EQ(tier_topic("orders", 1500ms), "orders.retry-1500ms");
  EXPECT_EQ(tier_topic("orders", 90s), "orders.retry-90s");
  EXPECT_EQ(tier_topic("orders", 2h), "orders.retry-2h");
  EXPECT_EQ(tier_topic("orders", 0ms), "orders.retry-0s");
}

TEST(RetryTiers, DlqDropsTheVersionSuffix) {
  EXPECT_EQ(default_dlq_topic("brew.shipments.v1"), "brew.shipments.dlq");
  EXPECT_EQ(default_dlq_topic("brew.shipments.v12"), "brew.shipments.dlq");
}

TEST(RetryTiers, DlqOfAnUnversionedTopicJustAppendsDlq) {
  EXPECT_EQ(default_dlq_topic("orders"), "orders.dlq");
  EXPECT_EQ(default_dlq_topic("orders.v"), "orders.v.dlq");
  EXPECT_EQ(default_dlq_topic("orders.v1beta"), "orders.v1beta.dlq");
  EXPECT_EQ(default_dlq_topic("orders.version"), "orders.version.dlq");
  EXPECT_EQ(default_dlq_topic("v1"), "v1.dlq");
  EXPECT_EQ(default_dlq_topic(".v1"), ".v1.dlq");
}

TEST(RetryTiers, ARoutesTopicsAreItsSourceItsTiersInOrderAndItsDlq) {
  const auto t = route_topics_named("brew.shipments.v1", {5s, 30s}, "");
  EXPECT_EQ(t.source, "brew.shipments.v1");
  EXPECT_EQ(t.dlq, "brew.shipments.dlq");
  EXPECT_EQ(t.consumed(),
            (std::vector<std::string>{"brew.shipments.v1", "brew.shipments.v1.retry-5s",
                                      "brew.shipments.v1.retry-30s"}));
  EXPECT_EQ(t.onward(),
            (std::vector<std::string>{"brew.shipments.v1.retry-5s", "brew.shipments.v1.retry-30s",
                                      "brew.shipments.dlq"}));
  EXPECT_EQ(t.all().size(), 4U);
  EXPECT_EQ(t.tier_index("brew.shipments.v1.retry-30s"), 1);
  EXPECT_EQ(t.tier_index("brew.shipments.v1"), -1);
  EXPECT_EQ(t.longest_delay(), 30s);
  EXPECT_EQ(route_topics_named("orders", {}, "parked").dlq, "parked");
}

TEST(RetryTiers, ASourceRecordGoesToTheFirstTier) {
  const auto d = next_destination(-1, /*permanent=*/false, orders);
  EXPECT_EQ(d.what, destination::kind::tier);
  EXPECT_EQ(d.tier_index, 0);
  EXPECT_EQ(d.topic, "orders.retry-5s");
  EXPECT_EQ(d.delay, 5s);
}

TEST(RetryTiers, EachTierHandsOverToTheNextOne) {
  const auto second = next_destination(0, false, orders);
  EXPECT_EQ(second.what, destination::kind::tier);
  EXPECT_EQ(second.tier_index, 1);
  EXPECT_EQ(second.topic, "orders.retry-30s");
  EXPECT_EQ(second.delay, 30s);

  const auto third = next_destination(1, false, orders);
  EXPECT_EQ(third.what, destination::kind::tier);
  EXPECT_EQ(third.tier_index, 2);
  EXPECT_EQ(third.topic, "orders.retry-5m");
  EXPECT_EQ(third.delay, 5min);
}

TEST(RetryTiers, AfterTheLastTierTheRecordGoesToTheDlq) {
  const auto d = next_destination(2, false, orders);
  EXPECT_EQ(d.what, destination::kind::dlq);
  EXPECT_EQ(d.topic, "orders.dlq");
  EXPECT_EQ(d.delay, 0ms);
  EXPECT_EQ(next_destination(7, false, orders).what, destination::kind::dlq);
}

TEST(RetryTiers, PermanentFailuresSkipEveryTier) {
  for (int tier = -1; tier <= 2; ++tier) {
    const auto d = next_destination(tier, /*permanent=*/true,
                                    route_topics_named("orders", {5s, 30s, 5min}, "x.dlq"));
    EXPECT_EQ(d.what, destination::kind::dlq) << tier;
    EXPECT_EQ(d.topic, "x.dlq") << tier;
  }
}

TEST(RetryTiers, WithoutTiersEveryFailureGoesToTheDlq) {
  const auto d = next_destination(-1, false, route_topics_named("orders", {}, "orders.dlq"));
  EXPECT_EQ(d.what, destination::kind::dlq);
  EXPECT_EQ(d.topic, "orders.dlq");
}

}  // namespace
}  // namespace courier
