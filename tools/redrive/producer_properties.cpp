#include "tools/redrive/producer_properties.hpp"

#include "core/retry/header_allowance.hpp"

namespace courier::redrive {

std::map<std::string, std::string> redrive_producer_properties(
    std::optional<std::int64_t> dlq_max_message_bytes) {
  std::map<std::string, std::string> properties{{"log_level", "0"}};
  if (dlq_max_message_bytes) {
    properties["message.max.bytes"] =
        std::to_string(producer_message_max_bytes(*dlq_max_message_bytes));
  }
  return properties;
}

}  // namespace courier::redrive
