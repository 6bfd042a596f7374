#include "core/model/idempotency_key.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

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

record carrying(std::string key) {
  record r;
  r.topic = "brew.shipments.v1";
  r.headers.emplace_back(std::string{idempotency_key_header}, std::move(key));
  return r;
}

bool is_digest_form(const std::string& key) {
  return key.size() == digest_key_bytes && key.rfind(digest_key_prefix, 0) == 0 &&
         key.find_first_not_of("0123456789abcdef", digest_key_prefix.size()) == std::string::npos;
}

TEST(IdempotencyKey, ACarriedKeyWithAByteAHeaderCannotCarryGoesAsItsDigest) {
  const auto key = idempotency_key_for(carrying("shp-1\r\nX-Evil: 1\x01\xc3\xa9"));
  EXPECT_TRUE(is_digest_form(key)) << key;
  EXPECT_EQ(key.find('\n'), std::string::npos) << "cannot inject a header";
  for (const std::string& odd : {std::string("a\0b", 3), std::string{"caf\xc3\xa9"},
                                 std::string{"tab\there"}, std::string{"del\x7f"}}) {
    EXPECT_TRUE(is_digest_form(idempotency_key_for(carrying(odd)))) << odd;
  }
}

TEST(IdempotencyKey, APrintableCarriedKeyUpToTheCapIsUsedAsItIs) {
  EXPECT_EQ(idempotency_key_for(carrying("ord-42:a b/c%")), "ord-42:a b/c%")
      << "a space inside is printable";
  const std::string at_cap(max_carried_key_bytes, 'k');
  EXPECT_EQ(idempotency_key_for(carrying(at_cap)), at_cap);
}

TEST(IdempotencyKey, ACarriedKeyLongerThanTheCapGoesAsTheSha256OfItsBytes) {
  std::string abc;
  while (abc.size() <= max_carried_key_bytes) {
    abc += "abc";
  }
  const auto key = idempotency_key_for(carrying(abc));
  EXPECT_TRUE(is_digest_form(key)) << key;
  EXPECT_EQ(idempotency_key_for(carrying(std::string(max_carried_key_bytes + 1, 'k'))).size(),
            digest_key_bytes);
  EXPECT_EQ(idempotency_key_for(carrying("abc" + std::string(max_carried_key_bytes, ' ') + "x")),
            idempotency_key_for(carrying("abc" + std::string(max_carried_key_bytes, ' ') + "x")))
      << "stable";
}

TEST(IdempotencyKey, TheDigestFormIsTheSha256OfTheCarriedBytes) {
  // printf '\x01abc' | sha256sum: anyone holding the producer's key can recompute it.
  EXPECT_EQ(idempotency_key_for(carrying("\x01"
                                         "abc")),
            "sha256:1e18834c426d00e57788444cb3ccd62c771b420c095bb0c4e040a8c122c4570d");
}

TEST(IdempotencyKey, AKeyWithASpaceAtEitherEndGoesAsItsDigest) {
  // HTTP strips a field value's outer whitespace: " k" sent as it is would reach the receiver
  // as "k", another producer's key.
  EXPECT_TRUE(is_digest_form(idempotency_key_for(carrying(" k"))));
  EXPECT_TRUE(is_digest_form(idempotency_key_for(carrying("k "))));
  EXPECT_NE(idempotency_key_for(carrying(" k")), idempotency_key_for(carrying("k")));
}

TEST(IdempotencyKey, TheDigestFormIsTheSameOnEveryHop) {
  const std::string blob(900 * 1024, '\xff');
  const auto first = idempotency_key_for(carrying(blob));
  ASSERT_TRUE(is_digest_form(first));
  // The tier or DLQ record carries the digest form in courier.idempotency.key.
  EXPECT_EQ(idempotency_key_for(carrying(first)), first);
  EXPECT_EQ(idempotency_key_for(carrying(idempotency_key_for(carrying(first)))), first);
}

TEST(IdempotencyKey, NoKeyIsLongerThanTheBound) {
  const std::string blob(900 * 1024, '\x00');
  EXPECT_LE(idempotency_key_for(carrying(blob)).size(), max_idempotency_key_bytes);
  record r;
  r.topic = std::string(249, 't');
  r.partition = std::numeric_limits<std::int32_t>::max();
  r.offset = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(idempotency_key_for(r).size(), max_idempotency_key_bytes);
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
