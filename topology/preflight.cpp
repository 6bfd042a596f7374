#include "topology/preflight.hpp"

#include <stdexcept>
#include <string>

#include "core/http/endpoint.hpp"
#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"

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

void check_route_url(const route_config& route, const std::string& key) {
  http::endpoint ep;
  try {
    ep = http::parse_endpoint(route.url);
  } catch (const std::invalid_argument& e) {
    throw config_error{key, e.what()};
  }
  if (ep.scheme != "http") {
    throw config_error{key, "courier cannot deliver to " + ep.scheme +
                                ":// endpoints yet (no TLS); use an http:// URL"};
  }
}

}  // namespace

void check_before_start(const courier_config& cfg) {
  check_kafka_properties(cfg.kafka);
  for (std::size_t i = 0; i < cfg.routes.size(); ++i) {
    check_route_url(cfg.routes[i], "routes[" + std::to_string(i) + "].url");
  }
}

}  // namespace courier::topology
