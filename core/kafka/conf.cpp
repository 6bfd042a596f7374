#include "core/kafka/conf.hpp"

#include "core/kafka/error.hpp"

#include <array>
#include <utility>

namespace courier::kafka {

conf_ptr make_conf(const std::map<std::string, std::string>& properties) {
  conf_ptr conf{rd_kafka_conf_new()};
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

std::map<std::string, std::string> with_overrides(std::map<std::string, std::string> defaults,
                                                  const std::map<std::string, std::string>& extra) {
  for (const auto& [name, value] : extra) {
    defaults[name] = value;
  }
  return defaults;
}

}  // namespace courier::kafka
