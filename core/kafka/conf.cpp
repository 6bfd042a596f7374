#include "core/kafka/conf.hpp"

#include "core/kafka/client_log.hpp"
#include "core/kafka/error.hpp"

#include <array>
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

std::map<std::string, std::string> with_overrides(std::map<std::string, std::string> defaults,
                                                  const std::map<std::string, std::string>& extra) {
  for (const auto& [name, value] : extra) {
    defaults[name] = value;
  }
  return defaults;
}

}  // namespace courier::kafka
