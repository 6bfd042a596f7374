#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/retry/error_trace.hpp"
#include "core/retry/header_value.hpp"
#include "core/model/idempotency_key.hpp"  // idempotency_key_header
#include "core/model/record.hpp"
#include "core/retry/retry_tiers.hpp"

namespace courier {

// DESIGN.md section 5: the string headers of retry and DLQ records. The actors, the due gate
// and the redrive tool share these names.
inline constexpr std::string_view route_header = "courier.route";
inline constexpr std::string_view origin_topic_header = "courier.origin.topic";
inline constexpr std::string_view origin_partition_header = "courier.origin.partition";
inline constexpr std::string_view origin_offset_header = "courier.origin.offset";
inline constexpr std::string_view origin_timestamp_header = "courier.origin.timestamp";
inline constexpr std::string_view attempts_header = "courier.attempts";
inline constexpr std::string_view retry_tier_header = "courier.retry.tier";
inline constexpr std::string_view retry_due_header = "courier.retry.due";
inline constexpr std::string_view error_header_prefix = "courier.error.";
inline constexpr std::string_view error_class_header = "courier.error.class";
inline constexpr std::string_view error_message_header = "courier.error.message";
inline constexpr std::string_view error_status_header = "courier.error.status";
inline constexpr std::string_view error_response_header = "courier.error.response";
inline constexpr std::string_view error_trace_header = "courier.error.trace";
inline constexpr std::string_view first_failure_header = "courier.first.failure";
inline constexpr std::string_view last_failure_header = "courier.last.failure";
inline constexpr std::string_view correlation_id_header = "courier.correlation.id";
// The endpoint a copy of a record is for, on a route with several (core/routing/endpoint_fanout):
// carried onto its tier and DLQ records, and by redrive onto the source.
inline constexpr std::string_view endpoint_header = "courier.endpoint";
// On a copy `courier replay` wrote (core/replay): the run that wrote it. Provenance (taken off a
// source record); sent to the partner as Courier-Replay-Id.
inline constexpr std::string_view replay_id_header = "courier.replay.id";
// On a DLQ record of an ordered route (routes[].ordering "key"): the source offsets of the later
// records of its key that were waiting behind it then, comma-separated, ascending. Only on a
// DLQ record, which never has courier.retry.due: a name of that length keeps the record within
// courier_header_allowance (header_allowance.cpp).
inline constexpr std::string_view followers_header = "courier.followers";
static_assert(followers_header.size() == retry_due_header.size());

// `courier.retry.tier` of a DLQ record that never went through a tier.
inline constexpr std::string_view no_retry_tier = "none";

// What went wrong in the attempts that just ended.
struct failure_info {
  std::string error_class;  // error_class(status, transport_error): "http_503", "timeout"
  std::string error_message;
  int status = 0;  // 0 when there was no HTTP answer
  std::string response_excerpt;
  std::vector<std::string> trace;  // oldest first, one format_trace_entry per attempt
  int attempts = 0;                // attempts in this sequence
  std::int64_t failed_at_ms = 0;
};

// Where a record first appeared in Kafka.
struct origin {
  std::string topic;
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  std::int64_t timestamp_ms = 0;
};

// A record's courier.* headers; defaults where a header is absent.
struct retry_state {
  std::optional<std::string> idempotency_key;
  std::optional<origin> from;  // present when courier.origin.topic is
  int total_attempts = 0;
  int tier = -1;  // -1: not from a tier (no header, or "none")
  std::optional<std::int64_t> due_ms;
  std::optional<std::int64_t> first_failure_ms;
  std::optional<std::string> correlation_id;
};

// A courier.* header whose value cannot be what the header means.
class header_error : public std::runtime_error {
 public:
  header_error(std::string_view header, std::string_view value);

  const std::string& header() const noexcept { return header_; }
  const std::string& value() const noexcept { return value_; }

 private:
  std::string header_;
  std::string value_;
};

// Throws header_error for a malformed number (courier.retry.due = "soon", a negative
// attempt count, a tier that is neither a tier index nor "none").
retry_state read_retry_state(const header_list& headers);

// The complete header list of the retry or DLQ record that carries `r` to `dest` (DESIGN.md
// section 5): r's own headers in order, minus courier.error.* and the per-hop routing headers,
// then courier's headers set on top. What the record's first appearance set (key, origin,
// first failure, correlation id) is kept byte for byte. The trace carries the earlier history
// forward. Never throws on a malformed incoming header: that record still has to move on, and
// what it writes reads back without header_error on the next hop (a malformed carried origin
// number is dropped, as if absent; courier.attempts saturates at INT_MAX).
header_list retry_headers(const record& r, const std::string& route, const destination& dest,
                          const failure_info& f, std::int64_t now_ms);

// courier.error.followers's value: the offsets, as many as fit within max_header_value, then
// ",+N" for the N left out ("" for none).
std::string followers_value(const std::vector<std::int64_t>& later);

}  // namespace courier
