#include "core/retry/header_allowance.hpp"

#include "core/retry/header_value.hpp"
#include "core/retry/retry_headers.hpp"

#include <array>

namespace courier {
namespace {

// Every header retry_headers sets on a tier or DLQ record (courier.retry.due only on a tier
// record; counted for both), and courier.endpoint, which a route with several endpoints sets on
// each copy of a record before it moves on (core/routing/endpoint_fanout). A DLQ record of an
// ordered route may carry courier.followers in its place: a name as long, a value within
// max_header_value (followers_value).
constexpr std::array<std::string_view, 18> courier_headers{
    idempotency_key_header,  route_header,          origin_topic_header,
    origin_partition_header, origin_offset_header,  origin_timestamp_header,
    attempts_header,         retry_tier_header,     retry_due_header,
    error_class_header,      error_message_header,  error_status_header,
    error_response_header,   error_trace_header,    first_failure_header,
    last_failure_header,     correlation_id_header, endpoint_header};

// A varint of a 32-bit length is at most 5 bytes.
constexpr std::int64_t max_varint32_bytes = 5;

// A tier or DLQ record is the source record (key, value, its own headers) minus the headers
// courier rewrites, plus courier's headers (a header set again replaces its old copy, a
// duplicate is dropped), so it outgrows the source record by at most the encoded size of
// courier's headers. Kafka's record format (v2) encodes each header as varint(name length),
// name, varint(value length), value. Each value is at most max_header_value bytes:
//  - route, origin topic, error class, message and response: cap_header_value;
//  - the trace: merged_trace keeps it within max_header_value;
//  - partition, offset, timestamp, attempts, tier, due, status, first and last failure: at most
//    20 digits and a sign;
//  - idempotency key and correlation id: at most max_idempotency_key_bytes (280: a carried key
//    longer than 256 bytes, or not printable, goes in its 71-byte digest form; and
//    "<topic>:<partition>:<offset>" is at most 249 + 1 + 10 + 1 + 19 bytes). The key replaces
//    the record's own copy, however long that was; a carried correlation id is kept, counted
//    in the record already.
// The record's own length and header count are varints that may grow, by at most 5 bytes each.
// 18 headers: names 356 bytes + values 18 x 1024 = 18432 + their length varints 18 x 2 x 5 = 180,
// plus 2 x 5 = 10 for the record: 356 + 18432 + 180 + 10 = 18978 bytes (an endpoint's name is
// at most 64 bytes: counted as any value, generously).
constexpr std::int64_t header_allowance() {
  std::int64_t bytes = 2 * max_varint32_bytes;
  for (const auto name : courier_headers) {
    bytes += static_cast<std::int64_t>(name.size() + max_header_value) + 2 * max_varint32_bytes;
  }
  return bytes;
}
static_assert(header_allowance() == 18978, "the arithmetic in the comment above");
static_assert(max_idempotency_key_bytes <= max_header_value, "the key fits its allowance");

}  // namespace

std::vector<std::string_view> courier_header_names() {
  return {courier_headers.begin(), courier_headers.end()};
}

std::int64_t courier_header_allowance() { return header_allowance(); }

std::int64_t tier_max_message_bytes(std::int64_t source_max_message_bytes) {
  return source_max_message_bytes + header_allowance();
}

}  // namespace courier
