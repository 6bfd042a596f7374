#include "core/redrive/ledger.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace courier::redrive {
namespace {

TEST(Ledger, KeyIsTheDlqCoordinatesAndParsesBack) {
  const std::string key = ledger_key({"brew.shipments.dlq", 3, 1234});
  EXPECT_EQ(key, "brew.shipments.dlq:3:1234");
  const auto c = parse_coordinates(key);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->topic, "brew.shipments.dlq");
  EXPECT_EQ(c->partition, 3);
  EXPECT_EQ(c->offset, 1234);
}

TEST(Ledger, MalformedCoordinatesAreRejected) {
  for (const char* bad : {"", "t", "t:1", ":1:2", "t::2", "t:1:", "t:-1:2", "t:1:x", "t:1:2:3"}) {
    EXPECT_FALSE(parse_coordinates(bad)) << bad;
  }
}

TEST(Ledger, NamesFollowTheDlqTopic) {
  EXPECT_EQ(default_ledger_topic("brew.shipments.dlq"), "brew.shipments.dlq.redriven");
  EXPECT_EQ(transactional_id_for("brew.shipments.dlq"), "courier-redrive-brew.shipments.dlq");
}

TEST(Ledger, ValueIsSmallJson) {
  const auto v = nlohmann::json::parse(ledger_value("brew.shipments.v1", 2, 99));
  EXPECT_EQ(v.at("target"), "brew.shipments.v1");
  EXPECT_EQ(v.at("partition"), 2);
  EXPECT_EQ(v.at("at"), 99);
}

TEST(Ledger, TombstoneForgetsAKey) {
  ledger l;
  l.apply("d:0:1", false);
  l.apply("d:0:2", false);
  l.apply("d:0:1", true);
  EXPECT_FALSE(l.contains("d:0:1"));
  EXPECT_TRUE(l.contains("d:0:2"));
  EXPECT_EQ(l.size(), 1U);
}

}  // namespace
}  // namespace courier::redrive
