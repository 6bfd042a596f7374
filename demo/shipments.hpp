#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/kafka/producer.hpp"

namespace courier::demo {

// One shipment assignment as the platform publishes it on brew.shipments.v1 (JSON).
std::string make_shipment(std::size_t index, std::uint64_t seed);

// The shipment's id, used as the Kafka key so a shipment's events stay in one partition.
std::string shipment_id(std::size_t index);

// Produces `count` shipment assignments to `topic` and waits until the broker acknowledged all.
// Throws kafka_error if any was not acknowledged.
void seed_shipments(kafka::producer& producer, const std::string& topic, std::size_t count,
                    std::uint64_t seed);

}  // namespace courier::demo
