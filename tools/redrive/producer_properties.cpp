#include "tools/redrive/producer_properties.hpp"

#include "core/retry/header_allowance.hpp"

#include <algorithm>

namespace courier::redrive {
namespace {

// librdkafka's lower limit for transaction.timeout.ms.
constexpr std::chrono::milliseconds min_transaction_timeout{1000};

}  // namespace

std::map<std::string, std::string> redrive_producer_properties(
    std::optional<std::int64_t> dlq_max_message_bytes, std::chrono::milliseconds timeout) {
  std::map<std::string, std::string> properties{
      {"log_level", "0"},
      {"transaction.timeout.ms",
       std::to_string(std::max(min_transaction_timeout, 2 * timeout).count())}};
  if (dlq_max_message_bytes) {
    properties["message.max.bytes"] =
        std::to_string(producer_message_max_bytes(*dlq_max_message_bytes));
  }
  return properties;
}

}  // namespace courier::redrive
