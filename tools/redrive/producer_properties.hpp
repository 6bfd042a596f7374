#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace courier::redrive {

// The librdkafka properties of redrive's transactional producer. A record it writes is a DLQ
// record with courier's error and tier headers dropped and three short redrive headers added,
// and a DLQ record is at most the DLQ's max.message.bytes, which courier sized for its
// source's records plus courier's headers. So the producer is sized like courier's retry
// producer with the DLQ as the source (producer_message_max_bytes: the allowance for
// courier's headers covers redrive's); with no size (`dlq_max_message_bytes` empty: the
// broker could not tell) it keeps librdkafka's default.
// transaction.timeout.ms is twice `timeout` (--timeout, which bounds each commit): the broker
// aborts a transaction a killed run left open after that, not after librdkafka's 60 s.
std::map<std::string, std::string> redrive_producer_properties(
    std::optional<std::int64_t> dlq_max_message_bytes, std::chrono::milliseconds timeout);

}  // namespace courier::redrive
