#pragma once

#include <string>
#include <string_view>

#include "core/model/record.hpp"

namespace courier {

// The header that carries a record's key through retry tiers, the DLQ and redrive.
inline constexpr std::string_view idempotency_key_header = "courier.idempotency.key";

// DESIGN.md section 3: the carried `courier.idempotency.key` if the record has one, else
// "<topic>:<partition>:<offset>" of this, its first appearance in Kafka.
std::string idempotency_key_for(const record& r);

}  // namespace courier
