#include "core/kafka/cluster.hpp"

#include <array>
#include <string_view>

namespace courier::kafka {
namespace {

// librdkafka's global properties about reaching and authenticating to the brokers.
constexpr std::array<std::string_view, 16> connection_prefixes{
    "security.protocol",
    "ssl.",
    "ssl_",
    "sasl.",
    "socket.",
    "client.id",
    "client.rack",
    "client.dns.",
    "broker.address.",
    "broker.version.",
    "api.version.",
    "connections.max.idle.ms",
    "reconnect.backoff.",
    "enable.ssl.",
    "enable.sasl.",
    "resolve.canonical.bootstrap.servers.only"};

}  // namespace

std::map<std::string, std::string> cluster::handle_properties(
    const std::map<std::string, std::string>& own) const {
  auto props = connection;
  props["bootstrap.servers"] = bootstrap;
  for (const auto& [name, value] : own) {
    props[name] = value;
  }
  return props;
}

std::map<std::string, std::string> connection_properties(
    const std::map<std::string, std::string>& client_properties) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : client_properties) {
    for (const auto prefix : connection_prefixes) {
      if (std::string_view{name}.substr(0, prefix.size()) == prefix) {
        out.emplace(name, value);
        break;
      }
    }
  }
  return out;
}

}  // namespace courier::kafka
