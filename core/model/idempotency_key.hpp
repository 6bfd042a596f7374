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

// The key as an RFC 8941 sf-string, the form draft-ietf-httpapi-idempotency-key-header gives the
// Idempotency-Key header: in double quotes, with `\` and `"` escaped by a backslash. An sf-string
// holds printable ASCII only, so any other byte of a carried key is percent-encoded, and `%`
// too, which keeps the form one-to-one: two keys never share a header value.
std::string idempotency_key_sf_string(std::string_view key);

// The Standard Webhooks `webhook-id` of a key: the key with `.` (the signed content is
// "id.timestamp.body", and the specification forbids dots in the id), `%`, space and every byte
// outside printable ASCII percent-encoded: "brew.shipments.v1:3:42" ->
// "brew%2Eshipments%2Ev1:3:42". Stable across attempts, one-to-one, readable beside the
// Idempotency-Key.
std::string webhook_id_for(std::string_view key);

}  // namespace courier
