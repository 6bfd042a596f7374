#include "core/kafka/max_message_bytes.hpp"

#include "core/kafka/admin.hpp"
#include "core/kafka/error.hpp"
#include "core/model/decimal.hpp"

#include <string_view>

namespace courier::kafka {
namespace {

constexpr std::string_view max_message_bytes_key = "max.message.bytes";

}  // namespace

std::int64_t max_message_bytes(const cluster& at, const std::string& topic,
                               std::chrono::milliseconds timeout) {
  const auto config = describe_topic_config(at, topic, timeout);
  const auto it = config.find(std::string{max_message_bytes_key});
  const std::string doing =
      "reading " + std::string{max_message_bytes_key} + " of topic '" + topic + "'";
  if (it == config.end()) {
    throw kafka_error(RD_KAFKA_RESP_ERR__FAIL, doing, "the broker does not report it");
  }
  const auto value = parse_decimal<std::int64_t>(it->second);
  if (!value || *value <= 0) {
    throw kafka_error(RD_KAFKA_RESP_ERR__FAIL, doing, "not a size: \"" + it->second + "\"");
  }
  return *value;
}

}  // namespace courier::kafka
