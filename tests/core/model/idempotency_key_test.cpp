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

TEST(IdempotencyKey, TheSameRecordAlwaysGetsTheSameKey) {
  const auto r = shipment_at("brew.shipments.v1", 1, 9);
  EXPECT_EQ(idempotency_key_for(r), idempotency_key_for(r));
  EXPECT_NE(idempotency_key_for(r), idempotency_key_for(shipment_at("brew.shipments.v1", 1, 10)));
}

}  // namespace
}  // namespace courier
