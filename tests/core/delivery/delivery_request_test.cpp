#include "core/delivery/delivery_request.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/model/idempotency_key.hpp"

namespace courier::testing {
namespace {

std::string header_value(const http::request& req, const std::string& name) {
  for (const auto& [k, v] : req.headers) {
    if (k == name) {
      return v;
    }
  }
  return {};
}

record shipment() {
  record r;
  r.topic = "brew.shipments.v1";
  r.partition = 3;
  r.offset = 42;
  r.value = std::string{"{\"id\":1}\0tail", 13};
  return r;
}

constexpr std::int64_t attempt_time = 1'800'000'000;

request_signing x_signature(const std::string& secret) {
  signing_settings s;
  s.hmac_secret = secret;
  return request_signing{s};
}

const std::string old_secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const std::string new_secret = "whsec_" + std::string(32, 'A');  // 24 zero bytes

bool has_header(const http::request& req, const std::string& name) {
  for (const auto& h : req.headers) {
    if (h.first == name) {
      return true;
    }
  }
  return false;
}

TEST(DeliveryRequest, SendsTheValueByteForByteWithItsSignature) {
  const hmac_signer signer{"s3cret"};
  const auto r = shipment();
  const auto req =
      make_delivery_request(r, "k", x_signature("s3cret"), "application/json", attempt_time);
  EXPECT_EQ(req.body, r.value);
  EXPECT_EQ(req.body.size(), 13U);
  EXPECT_EQ(header_value(req, "X-Signature"), signer.sign(r.value));
  EXPECT_TRUE(signer.verify(req.body, header_value(req, "X-Signature")));
  EXPECT_EQ(req.content_type, "application/json");
  EXPECT_FALSE(has_header(req, "webhook-signature")) << "x-signature only, as by default";
}

TEST(DeliveryRequest, CarriesTheRecordsIdempotencyKey) {
  const auto r = shipment();
  const auto req = make_delivery_request(r, idempotency_key_for(r), x_signature("s3cret"),
                                         "application/json", attempt_time);
  EXPECT_EQ(header_value(req, "Idempotency-Key"), "brew.shipments.v1:3:42");
}

TEST(DeliveryRequest, SpellsTheIdempotencyKeyAsAnSfStringWhenTheRouteAsks) {
  signing_settings s;
  s.hmac_secret = "s3cret";
  s.key_form = idempotency_key_form::sf_string;
  const auto r = shipment();
  const auto req =
      make_delivery_request(r, idempotency_key_for(r), request_signing{s}, "a/b", attempt_time);
  EXPECT_EQ(header_value(req, "Idempotency-Key"), "\"brew.shipments.v1:3:42\"");
}

TEST(DeliveryRequest, TakesTheContentTypeTheRecordNames) {
  auto r = shipment();
  r.headers.emplace_back("content-type", "application/cloudevents+json");
  const auto req =
      make_delivery_request(r, "k", x_signature("x"), "application/json", attempt_time);
  EXPECT_EQ(req.content_type, "application/cloudevents+json");
}

TEST(DeliveryRequest, AContentTypeAHeaderCannotCarryFallsBackToTheRoutesDefault) {
  auto r = shipment();
  r.headers.emplace_back("content-type", "text/plain\r\nX-Evil: 1");
  const auto req =
      make_delivery_request(r, "k", x_signature("x"), "application/json", attempt_time);
  EXPECT_EQ(req.content_type, "application/json");
}

TEST(DeliveryRequest, SignsWithStandardWebhooksOverIdTimestampAndBody) {
  signing_settings s;
  s.x_signature = false;
  s.standard_webhooks_secrets = {old_secret};
  const request_signing signing{s};
  const auto r = shipment();
  const auto req =
      make_delivery_request(r, idempotency_key_for(r), signing, "application/json", attempt_time);
  EXPECT_EQ(header_value(req, "webhook-id"), "brew%2Eshipments%2Ev1:3:42");
  EXPECT_EQ(header_value(req, "webhook-timestamp"), "1800000000");
  EXPECT_EQ(header_value(req, "webhook-signature"),
            signing.standard_webhooks()->sign("brew%2Eshipments%2Ev1:3:42", attempt_time, r.value));
  EXPECT_EQ(signing.standard_webhooks()->verify(
                header_value(req, "webhook-id"), header_value(req, "webhook-timestamp"),
                header_value(req, "webhook-signature"), req.body, attempt_time + 1),
            standard_webhooks_signer::verdict::verified);
  EXPECT_FALSE(has_header(req, "X-Signature"));
  EXPECT_EQ(header_value(req, "Idempotency-Key"), "brew.shipments.v1:3:42");
}

TEST(DeliveryRequest, EachAttemptIsSignedWithItsOwnTimestampUnderTheSameId) {
  signing_settings s;
  s.standard_webhooks_secrets = {old_secret};
  s.hmac_secret = "both schemes at once, as during a migration";
  const request_signing signing{s};
  const auto r = shipment();
  const auto first = make_delivery_request(r, "k", signing, "a/b", attempt_time);
  const auto later = make_delivery_request(r, "k", signing, "a/b", attempt_time + 30);
  EXPECT_EQ(header_value(first, "webhook-id"), header_value(later, "webhook-id"));
  EXPECT_EQ(header_value(later, "webhook-timestamp"), "1800000030");
  EXPECT_NE(header_value(first, "webhook-signature"), header_value(later, "webhook-signature"));
  EXPECT_EQ(header_value(first, "X-Signature"), header_value(later, "X-Signature"));
}

TEST(DeliveryRequest, DuringARotationBothTheOldAndTheNewSecretVerifyTheSameRequest) {
  signing_settings s;
  s.x_signature = false;
  s.standard_webhooks_secrets = {old_secret, new_secret};
  const auto req = make_delivery_request(shipment(), "k", request_signing{s}, "a/b", attempt_time);
  const auto signatures = header_value(req, "webhook-signature");
  EXPECT_EQ(std::count(signatures.begin(), signatures.end(), ' '), 1) << signatures;
  for (const auto& secret : {old_secret, new_secret}) {
    const standard_webhooks_signer receiver{{secret}};
    EXPECT_EQ(
        receiver.verify(header_value(req, "webhook-id"), header_value(req, "webhook-timestamp"),
                        signatures, req.body, attempt_time),
        standard_webhooks_signer::verdict::verified)
        << secret;
  }
}

TEST(IdempotencyKey, IsTheFirstAppearanceInKafkaUnlessTheRecordCarriesOne) {
  auto r = shipment();
  EXPECT_EQ(idempotency_key_for(r), "brew.shipments.v1:3:42");
  r.headers.emplace_back("courier.idempotency.key", "brew.shipments.v1:0:7");
  r.topic = "brew.shipments.v1.retry-5s";
  r.offset = 1000;
  EXPECT_EQ(idempotency_key_for(r), "brew.shipments.v1:0:7");
}

TEST(IdempotencyKey, IgnoresAnEmptyCarriedKey) {
  auto r = shipment();
  r.headers.emplace_back("courier.idempotency.key", "");
  EXPECT_EQ(idempotency_key_for(r), "brew.shipments.v1:3:42");
}

}  // namespace
}  // namespace courier::testing
