#include "core/model/idempotency_key.hpp"

#include <gtest/gtest.h>

#include "core/model/record.hpp"

namespace courier {
namespace {

record shipment_at(std::string topic, std::int32_t partition, std::int64_t offset) {
  record r;
  r.topic = std::move(topic);
  r.partition = partition;
  r.offset = offset;
  r.value = R"({"shipment_id":"shp-1"})";
  return r;
}

TEST(IdempotencyKey, IsTopicPartitionOffsetOfTheFirstAppearance) {
  EXPECT_EQ(idempotency_key_for(shipment_at("brew.shipments.v1", 3, 42)), "brew.shipments.v1:3:42");
}

TEST(IdempotencyKey, ACarriedKeyWinsOverTheRecordsOwnCoordinates) {
  auto r = shipment_at("brew.shipments.v1.retry-5s", 0, 7);
  r.headers.emplace_back(std::string{idempotency_key_header}, "brew.shipments.v1:3:42");
  EXPECT_EQ(idempotency_key_for(r), "brew.shipments.v1:3:42");
}

TEST(IdempotencyKey, ACarriedKeyCannotInjectAHeader) {
  record r;
  r.topic = "t";
  r.headers.emplace_back(std::string{idempotency_key_header}, "shp-1\r\nX-Evil: 1\x01\xc3\xa9");
  EXPECT_EQ(idempotency_key_for(r), "shp-1%0D%0AX-Evil: 1%01%C3%A9");
  EXPECT_EQ(idempotency_key_for(r), idempotency_key_for(r)) << "stable";
  record plain = r;
  plain.headers = {{std::string{idempotency_key_header}, "ord-42:a b/c%"}};
  EXPECT_EQ(idempotency_key_for(plain), "ord-42:a b/c%") << "a printable key is unchanged";
}

TEST(IdempotencyKey, TheSameRecordAlwaysGetsTheSameKey) {
  const auto r = shipment_at("brew.shipments.v1", 1, 9);
  EXPECT_EQ(idempotency_key_for(r), idempotency_key_for(r));
  EXPECT_NE(idempotency_key_for(r), idempotency_key_for(shipment_at("brew.shipments.v1", 1, 10)));
}

TEST(IdempotencyKeySfString, QuotesThePlainKey) {
  EXPECT_EQ(idempotency_key_sf_string("brew.shipments.v1:3:42"), "\"brew.shipments.v1:3:42\"");
}

TEST(IdempotencyKeySfString, EscapesBackslashAndDoubleQuoteAsRfc8941Says) {
  EXPECT_EQ(idempotency_key_sf_string(R"(a"b\c)"), R"("a\"b\\c")");
}

TEST(IdempotencyKeySfString, PercentEncodesWhatAnSfStringCannotHoldAndThePercentSign) {
  EXPECT_EQ(idempotency_key_sf_string("a\r\nb"), "\"a%0D%0Ab\"");
  EXPECT_EQ(idempotency_key_sf_string("caf\xc3\xa9"), "\"caf%C3%A9\"");
  EXPECT_EQ(idempotency_key_sf_string("100%"), "\"100%25\"");
  EXPECT_NE(idempotency_key_sf_string("%0A"), idempotency_key_sf_string("\n"))
      << "two keys never share a header value";
  EXPECT_EQ(idempotency_key_sf_string("a b"), "\"a b\"") << "space is printable in an sf-string";
}

TEST(WebhookId, IsTheKeyWithoutDots) {
  EXPECT_EQ(webhook_id_for("brew.shipments.v1:3:42"), "brew%2Eshipments%2Ev1:3:42");
  EXPECT_EQ(webhook_id_for("brew.shipments.v1:3:42").find('.'), std::string::npos);
}

TEST(WebhookId, IsOneToOneAndHeaderSafe) {
  EXPECT_NE(webhook_id_for("a.b"), webhook_id_for("a%2Eb"));
  EXPECT_EQ(webhook_id_for("a b\n\x7f"), "a%20b%0A%7F");
  EXPECT_EQ(webhook_id_for("msg_p5jXN8AQM9LWM0D4loKWxJek"), "msg_p5jXN8AQM9LWM0D4loKWxJek");
}

TEST(WebhookId, TheSameRecordGetsTheSameIdOnEveryAttempt) {
  const auto r = shipment_at("brew.shipments.v1", 1, 9);
  EXPECT_EQ(webhook_id_for(idempotency_key_for(r)), webhook_id_for(idempotency_key_for(r)));
}

}  // namespace
}  // namespace courier
