#include "core/delivery/delivery_request.hpp"

#include <gtest/gtest.h>

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

TEST(DeliveryRequest, SendsTheValueByteForByteWithItsSignature) {
  const hmac_signer signer{"s3cret"};
  const auto r = shipment();
  const auto req = make_delivery_request(r, "k", signer, "application/json");
  EXPECT_EQ(req.body, r.value);
  EXPECT_EQ(req.body.size(), 13U);
  EXPECT_EQ(header_value(req, "X-Signature"), signer.sign(r.value));
  EXPECT_TRUE(signer.verify(req.body, header_value(req, "X-Signature")));
  EXPECT_EQ(req.content_type, "application/json");
}

TEST(DeliveryRequest, CarriesTheRecordsIdempotencyKey) {
  const hmac_signer signer{"s3cret"};
  const auto r = shipment();
  const auto req = make_delivery_request(r, idempotency_key_for(r), signer, "application/json");
  EXPECT_EQ(header_value(req, "Idempotency-Key"), "brew.shipments.v1:3:42");
}

TEST(DeliveryRequest, TakesTheContentTypeTheRecordNames) {
  auto r = shipment();
  r.headers.emplace_back("content-type", "application/cloudevents+json");
  const auto req = make_delivery_request(r, "k", hmac_signer{"x"}, "application/json");
  EXPECT_EQ(req.content_type, "application/cloudevents+json");
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
