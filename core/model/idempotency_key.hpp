#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "core/model/record.hpp"

namespace courier {

// How the Idempotency-Key header spells the key (routes[].idempotency_key_format).
enum class idempotency_key_form {
  plain,      // "plain": the key as it is (DESIGN.md section 3)
  sf_string,  // "sf-string": an RFC 8941 sf-string, as draft-ietf-httpapi-idempotency-key-header
              // has it
};

// The header that carries a record's key through retry tiers, the DLQ and redrive.
inline constexpr std::string_view idempotency_key_header = "courier.idempotency.key";

// A carried key is used as it is when it is at most this long and every byte of it is
// printable ASCII (0x20-0x7E), with no space at either end; any other carried key is used in its
// digest form.
inline constexpr std::size_t max_carried_key_bytes = 256;

// The digest form of a carried key: "sha256:" and the 64 lowercase hex digits of the SHA-256 of
// its bytes. It is printable and short, so a digest form carried on (a tier or DLQ record's
// header) is used as it is: the same key on every hop.
inline constexpr std::string_view digest_key_prefix = "sha256:";
inline constexpr std::size_t digest_key_bytes = digest_key_prefix.size() + 64;

// The longest key courier uses: a carried key, its digest form, or "<topic>:<partition>:<offset>"
// (a topic name is at most 249 bytes, a partition 10 digits, an offset 19).
inline constexpr std::size_t max_idempotency_key_bytes =
    std::max({max_carried_key_bytes, digest_key_bytes, std::size_t{249 + 1 + 10 + 1 + 19}});

// DESIGN.md section 3: the carried `courier.idempotency.key` if the record has one (in its digest
// form when it is too long or holds a byte a header value cannot carry as it is), else
// "<topic>:<partition>:<offset>" of this, its first appearance in Kafka. At most
// max_idempotency_key_bytes, printable ASCII only.
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
