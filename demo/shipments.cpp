#include "demo/shipments.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <random>

#include <nlohmann/json.hpp>

#include "core/kafka/error.hpp"

namespace courier::demo {

std::string shipment_id(std::size_t index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "shp-%08zu", index);
  return buf;
}

std::string make_shipment(std::size_t index, std::uint64_t seed) {
  static constexpr std::array<const char*, 4> partners = {"fleetly", "zoomcargo", "pedalpost",
                                                          "vanvan"};
  static constexpr std::array<const char*, 4> cities = {"Lisbon", "Porto", "Braga", "Faro"};
  std::mt19937_64 rng{seed ^ (index * 0x9E3779B97F4A7C15ULL)};
  std::uniform_int_distribution<int> items{1, 6};
  std::uniform_int_distribution<std::size_t> pick{0, 3};
  std::uniform_real_distribution<double> coord{-0.05, 0.05};
  const nlohmann::json doc = {
      {"type", "shipment.assigned"},
      {"shipment_id", shipment_id(index)},
      {"order_id", "ord-" + std::to_string(100000 + index)},
      {"courier_partner", partners.at(pick(rng))},
      {"city", cities.at(pick(rng))},
      {"items", items(rng)},
      {"pickup", {{"lat", 38.72 + coord(rng)}, {"lon", -9.14 + coord(rng)}}},
      {"dropoff", {{"lat", 38.72 + coord(rng)}, {"lon", -9.14 + coord(rng)}}},
  };
  return doc.dump();
}

// Distinct by role: a topic and the demo's seed options.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
void seed_shipments(kafka::producer& producer, const std::string& topic, std::size_t count,
                    std::uint64_t seed) {
  for (std::size_t i = 0; i < count; ++i) {
    const auto key = shipment_id(i);
    producer.produce(topic, /*partition=*/-1, key, make_shipment(i, seed));
  }
  producer.flush(std::chrono::seconds{30});
  if (producer.failed() != 0) {
    throw kafka::kafka_error(RD_KAFKA_RESP_ERR__FAIL, std::to_string(producer.failed()) +
                                                          " shipments were not acknowledged");
  }
}

}  // namespace courier::demo
