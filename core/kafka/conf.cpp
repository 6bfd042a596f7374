#include "core/kafka/conf.hpp"

#include "core/kafka/client_log.hpp"
#include "core/kafka/error.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

namespace courier::kafka {

conf_ptr make_conf(const std::map<std::string, std::string>& properties) {
  conf_ptr conf{rd_kafka_conf_new()};
  rd_kafka_conf_set_log_cb(conf.get(), &forward_client_log);
  for (const auto& [name, value] : properties) {
    std::array<char, 512> reason{};
    const rd_kafka_conf_res_t res =
        rd_kafka_conf_set(conf.get(), name.c_str(), value.c_str(), reason.data(), reason.size());
    switch (res) {
      case RD_KAFKA_CONF_OK:
        break;
      case RD_KAFKA_CONF_UNKNOWN:
        throw kafka_error(RD_KAFKA_RESP_ERR__INVALID_ARG, "unknown Kafka property '" + name + "'",
                          reason.data());
      case RD_KAFKA_CONF_INVALID:
        throw kafka_error(RD_KAFKA_RESP_ERR__INVALID_ARG,
                          "invalid value for Kafka property '" + name + "'", reason.data());
    }
  }
  return conf;
}

void check_client_conf(rd_kafka_type_t type, const std::map<std::string, std::string>& properties) {
  auto quiet = properties;
  quiet["log_level"] = "0";  // a probe: what the real client warns about, it warns about itself
  // Nor does it connect: without bootstrap servers its handle has no broker to dial (the
  // properties are what is checked; whether a broker answers is the start-up's next question).
  quiet.erase("bootstrap.servers");
  quiet.erase("metadata.broker.list");
  conf_ptr conf = make_conf(quiet);
  std::array<char, 512> reason{};
  // Never joins a group: a broker that cannot be reached must not hold the check up.
  const unjoined_handle_ptr rk{rd_kafka_new(type, conf.get(), reason.data(), reason.size())};
  if (!rk) {
    throw kafka_error(
        RD_KAFKA_RESP_ERR__INVALID_ARG,
        type == RD_KAFKA_CONSUMER ? "the consumer's properties" : "the producer's properties",
        reason.data());
  }
  static_cast<void>(conf.release());  // rd_kafka_new took ownership
}

namespace {

// Each property's role as librdkafka lists it: 'C', 'P' or '*'; a name listed twice (a global
// and a topic property) with different roles counts as '*'.
std::map<std::string, char> property_roles() {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  if (out == nullptr) {
    return {};
  }
  rd_kafka_conf_properties_show(out);
  std::fclose(out);
  const std::unique_ptr<char, decltype(&std::free)> owned{text, &std::free};
  std::map<std::string, char> roles;
  std::istringstream lines{std::string{text, size}};
  std::string line;
  const auto trimmed = [](const std::string& s) {
    const auto first = s.find_first_not_of(' ');
    const auto last = s.find_last_not_of(' ');
    return first == std::string::npos ? std::string{} : s.substr(first, last - first + 1);
  };
  while (std::getline(lines, line)) {
    const auto bar = line.find('|');
    const auto next = bar == std::string::npos ? bar : line.find('|', bar + 1);
    if (next == std::string::npos) {
      continue;
    }
    const std::string name = trimmed(line.substr(0, bar));
    const std::string role = trimmed(line.substr(bar + 1, next - bar - 1));
    if (name.empty() || role.size() != 1 || (role != "C" && role != "P" && role != "*")) {
      continue;  // the header, its rule, anything else
    }
    const auto [it, fresh] = roles.emplace(name, role.front());
    if (!fresh && it->second != role.front()) {
      it->second = '*';
    }
  }
  return roles;
}

}  // namespace

std::map<std::string, std::string> for_client(
    rd_kafka_type_t type, const std::map<std::string, std::string>& properties) {
  static const std::map<std::string, char> roles = property_roles();
  const char other = type == RD_KAFKA_CONSUMER ? 'P' : 'C';
  std::map<std::string, std::string> taken;
  for (const auto& [name, value] : properties) {
    const auto it = roles.find(name);
    if (it == roles.end() || it->second != other) {
      taken.emplace(name, value);
    }
  }
  return taken;
}

// Distinct by role: the defaults and the overrides, in that order by name.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
std::map<std::string, std::string> with_overrides(std::map<std::string, std::string> defaults,
                                                  const std::map<std::string, std::string>& extra) {
  for (const auto& [name, value] : extra) {
    defaults[name] = value;
  }
  return defaults;
}

}  // namespace courier::kafka
