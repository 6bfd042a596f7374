#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace courier {

// librdkafka's default message.max.bytes: a producer refuses a larger record client-side.
inline constexpr std::int64_t librdkafka_default_message_max_bytes = 1'000'000;

// The headers courier sets on a record it moves to a tier or the DLQ (retry_headers), as the
// allowance below counts them.
std::vector<std::string_view> courier_header_names();

// The most bytes courier's headers add to a record it moves to a tier or the DLQ, in Kafka's
// record encoding; see header_allowance.cpp for the arithmetic.
std::int64_t courier_header_allowance();

// The max.message.bytes a tier or DLQ topic needs so every record of a source topic whose
// max.message.bytes is `source_max_message_bytes` fits with courier's headers.
std::int64_t tier_max_message_bytes(std::int64_t source_max_message_bytes);

// The message.max.bytes a producer needs to write every record of a source topic whose
// max.message.bytes is `source_max_message_bytes` with courier's headers on it:
// tier_max_message_bytes, at least librdkafka's default.
std::int64_t producer_message_max_bytes(std::int64_t source_max_message_bytes);

}  // namespace courier
