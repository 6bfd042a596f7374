#include "topology/preflight.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/http/endpoint.hpp"
#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"
#include "core/kafka/producer.hpp"
#include "core/model/decimal.hpp"
#include "topology/topics.hpp"
#include "topology/route_settings.hpp"

namespace courier::topology {
namespace {

// Properties courier sets itself because delivery depends on them: set in kafka.properties they
// would lose records (an offset stored before its record is delivered, a tier record counted as
// written before a replica has it) or point the consumer elsewhere than the start-up checks.
struct owned_property {
  std::string_view name;
  std::string_view why;
};
constexpr std::array<owned_property, 8> courier_owned_properties{{
    {"bootstrap.servers", "courier sets it from kafka.brokers (or KAFKA_BROKERS); set that"},
    {"group.id", "courier sets it from kafka.group_id; set that"},
    {"enable.auto.offset.store",
     "courier commits a record's offset itself, once the record is delivered or written to a "
     "retry tier or the DLQ; librdkafka's own store would commit records never delivered"},
    {"enable.auto.commit",
     "courier commits offsets itself, with the offsets done above the commit point in the "
     "commit's metadata; auto.commit.interval.ms sets how often"},
    {"enable.idempotence",
     "the retry tier and DLQ producer is idempotent, so a produce retried after a lost "
     "acknowledgement writes no second copy"},
    {"acks", "a retry tier or DLQ record counts as written once every in-sync replica has it"},
    {"request.required.acks",
     "a retry tier or DLQ record counts as written once every in-sync replica has it"},
    {"transactional.id", "the retry tier and DLQ producer is not transactional"},
}};

// The value librdkafka keeps for one property, as it prints it; nothing for a property it does
// not print (a pointer, a topic-level one it keeps elsewhere).
std::optional<std::string> kept_value(const kafka::conf_ptr& conf, const std::string& name) {
  std::array<char, 1024> value{};
  std::size_t size = value.size();
  if (rd_kafka_conf_get(conf.get(), name.c_str(), value.data(), &size) != RD_KAFKA_CONF_OK) {
    return std::nullopt;
  }
  return std::string{value.data()};
}

void check_kafka_properties(const kafka_config& kafka) {
  for (const auto& [name, value] : kafka.properties) {
    for (const auto& owned : courier_owned_properties) {
      if (name == owned.name) {
        throw config_error{"kafka.properties." + name,
                           "courier sets this property itself: " + std::string{owned.why}};
      }
    }
    kafka::conf_ptr conf;
    try {
      // One property at a time, so the error names the entry, whatever else is set.
      conf = kafka::make_conf({{name, value}});
    } catch (const kafka::kafka_error& e) {
      throw config_error{"kafka.properties." + name, e.what()};
    }
    // librdkafka reads an integer property with strtol and keeps 32 bits of it: "30s" is 30 ms,
    // 4294967297 is 1. A number must be written as the number librdkafka keeps.
    if (const auto kept = kept_value(conf, name);
        kept && parse_decimal<std::int64_t>(*kept) && *kept != value) {
      throw config_error{"kafka.properties." + name,
                         "expected a whole number (in the property's unit, e.g. milliseconds for "
                         "*.ms) within 32 bits, got \"" +
                             value + "\", which librdkafka would read as " + *kept};
    }
  }
}

// Two routes on one topic would split its partitions between their consumers (one group), and a
// DLQ among the topics a route consumes would deliver dead-lettered records again. Routes may
// share a DLQ: its records name their origin topic and route.
void check_routes_apart(const courier_config& cfg) {
  std::map<std::string, std::size_t> consumed_by;  // topic -> the route consuming it
  for (std::size_t i = 0; i < cfg.routes.size(); ++i) {
    const auto& route = cfg.routes[i];
    for (const auto& topic : topics_of(route).consumed()) {
      const auto [it, fresh] = consumed_by.emplace(topic, i);
      if (!fresh) {
        throw config_error{
            "routes[" + std::to_string(i) + "].topic",
            "topic \"" + topic + "\" is consumed by route \"" + cfg.routes[it->second].name +
                "\" too: routes share one consumer group, so they would split its partitions "
                "and each would see only some of its records; give each route its own topic"};
      }
    }
  }
  for (std::size_t i = 0; i < cfg.routes.size(); ++i) {
    const auto dlq = topics_of(cfg.routes[i]).dlq;
    if (const auto it = consumed_by.find(dlq); it != consumed_by.end()) {
      throw config_error{"routes[" + std::to_string(i) + "].dlq_topic",
                         "\"" + dlq + "\" is a source or retry topic of route \"" +
                             cfg.routes[it->second].name +
                             "\": its dead-lettered records would be delivered again"};
    }
  }
}

// Each property passed alone; librdkafka checks some only together, when a client is created
// (fetch.max.bytes against message.max.bytes, acks against enable.idempotence, ...). The route's
// consumer and the retry router's producer, with courier's defaults, as they will be created.
void check_kafka_clients(const kafka_config& kafka) {
  try {
    kafka::check_client_conf(RD_KAFKA_CONSUMER,
                             kafka::consumer_properties(consumer_settings_of(kafka)));
    kafka::check_client_conf(RD_KAFKA_PRODUCER,
                             kafka::producer_properties(kafka.brokers, kafka.properties));
  } catch (const kafka::kafka_error& e) {
    throw config_error{"kafka.properties", e.what()};
  }
}

void check_route_url(const route_config& route, const std::string& path) {
  http::endpoint ep;
  try {
    ep = http::parse_endpoint(route.url);
  } catch (const std::invalid_argument& e) {
    throw config_error{path + ".url", e.what()};
  }
  if (ep.scheme != "https") {
    return;
  }
  try {
    // Loads the CA file and the client certificate and key as the client will.
    (void)http::make_tls_context(route.tls);
  } catch (const http::tls_setup_error& e) {
    throw config_error{path + ".tls." + e.field(), e.what()};
  }
}

}  // namespace

void check_before_start(const courier_config& cfg) {
  check_kafka_properties(cfg.kafka);
  check_kafka_clients(cfg.kafka);
  check_routes_apart(cfg);
  for (std::size_t i = 0; i < cfg.routes.size(); ++i) {
    const std::string path = "routes[" + std::to_string(i) + "]";
    if (cfg.routes[i].endpoints.empty()) {
      check_route_url(cfg.routes[i], path);
      continue;
    }
    const auto endpoints = endpoints_of(cfg.routes[i]);
    for (std::size_t j = 0; j < endpoints.size(); ++j) {
      check_route_url(endpoints[j].settings, path + ".endpoints[" + std::to_string(j) + "]");
    }
  }
}

}  // namespace courier::topology
