#include "core/redrive/producer_properties.hpp"

#include "core/retry/rewrite_producer.hpp"

#include <algorithm>

namespace courier::redrive {
namespace {

// librdkafka's lower limit for transaction.timeout.ms.
constexpr std::chrono::milliseconds min_transaction_timeout{1000};

}  // namespace

std::map<std::string, std::string> redrive_producer_properties(std::chrono::milliseconds timeout) {
  return rewrite_producer_properties(
      {{"log_level", "0"},
       {"transaction.timeout.ms",
        std::to_string(std::max(min_transaction_timeout, 2 * timeout).count())}});
}

}  // namespace courier::redrive
