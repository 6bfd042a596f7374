#include "topology/preflight.hpp"

#include <stdexcept>
#include <string>

#include "core/http/endpoint.hpp"
#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"
#include "core/kafka/producer.hpp"

namespace courier::topology {
namespace {

void check_kafka_properties(const kafka_config& kafka) {
  for (const auto& [name, value] : kafka.properties) {
    try {
      // One property at a time, so the error names the entry, whatever else is set.
      kafka::make_conf({{name, value}});
    } catch (const kafka::kafka_error& e) {
      throw config_error{"kafka.properties." + name, e.what()};
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
    (void)http::make_tls_context(tls_settings_of(route.tls));
  } catch (const http::tls_setup_error& e) {
    throw config_error{path + ".tls." + e.field(), e.what()};
  }
}

}  // namespace

kafka::consumer_settings consumer_settings_of(const kafka_config& kafka) {
  kafka::consumer_settings s;
  s.bootstrap = kafka.brokers;
  s.group_id = kafka.group_id;
  s.extra = kafka.properties;
  return s;
}

http::tls_settings tls_settings_of(const tls_config& tls) {
  return http::tls_settings{tls.ca_file, tls.client_cert_file, tls.client_key_file};
}

void check_before_start(const courier_config& cfg) {
  check_kafka_properties(cfg.kafka);
  check_kafka_clients(cfg.kafka);
  for (std::size_t i = 0; i < cfg.routes.size(); ++i) {
    check_route_url(cfg.routes[i], "routes[" + std::to_string(i) + "]");
  }
}

}  // namespace courier::topology
