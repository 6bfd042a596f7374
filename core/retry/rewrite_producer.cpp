#include "core/retry/rewrite_producer.hpp"

#include "core/model/decimal.hpp"
#include "core/retry/header_allowance.hpp"

#include <algorithm>

namespace courier {
namespace {

std::int64_t number_or(const std::map<std::string, std::string>& properties, const char* key,
                       std::int64_t fallback) {
  const auto it = properties.find(key);
  if (it == properties.end()) {
    return fallback;
  }
  return parse_decimal<std::int64_t>(it->second).value_or(fallback);
}

}  // namespace

std::int64_t rewrite_message_max_bytes(std::int64_t receive_message_max_bytes) {
  return std::min(
      librdkafka_max_message_max_bytes,
      std::max<std::int64_t>(receive_message_max_bytes, 0) + courier_header_allowance());
}

std::map<std::string, std::string> rewrite_producer_properties(
    std::map<std::string, std::string> properties) {
  const std::int64_t needed = rewrite_message_max_bytes(number_or(
      properties, "receive.message.max.bytes", librdkafka_default_receive_message_max_bytes));
  const std::int64_t set = number_or(properties, "message.max.bytes", 0);
  properties["message.max.bytes"] = std::to_string(std::max(needed, set));
  if (properties.count("compression.type") == 0 && properties.count("compression.codec") == 0) {
    properties["compression.type"] = rewrite_compression;
  }
  return properties;
}

}  // namespace courier
