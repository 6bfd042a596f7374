#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace courier {

// The headers courier sets on a record it moves to a tier or the DLQ (retry_headers), as the
// allowance below counts them.
std::vector<std::string_view> courier_header_names();

// The most bytes courier's headers add to a record it moves to a tier or the DLQ, in Kafka's
// record encoding; see header_allowance.cpp for the arithmetic.
std::int64_t courier_header_allowance();

// The max.message.bytes a tier or DLQ topic needs so every record of a source topic whose
// max.message.bytes is `source_max_message_bytes` fits with courier's headers.
std::int64_t tier_max_message_bytes(std::int64_t source_max_message_bytes);

}  // namespace courier
