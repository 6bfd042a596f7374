#pragma once

// Every error class courier writes as a failed record's courier.error.class (its tier and DLQ
// records, the logs, the DLQ metrics): the names `redrive --class` and
// routes[].auto_redrive.classes select by, so a name outside this list selects nothing and is
// refused at start-up. Where each comes from:
//   - an answer's status: error_class() in core/delivery/status_classifier.hpp ("http_503",
//     "http_5xx" for the other 5xx, ...) and, for a request that got none, the transport error
//     (core/model/transport_error.hpp);
//   - a record moved on without an attempt: key_parked, unknown_endpoint, endpoint_paused,
//     breaker_open, retry_budget (core/delivery).
// tests/core/delivery/error_classes_test.cpp checks that each source writes only these.

#include <algorithm>
#include <array>
#include <string_view>

namespace courier {

// The classes of a record moved on without an attempt, named where they are written.
namespace error_class_name {
inline constexpr char key_parked[] = "key_parked";              // behind its dead-lettered key
inline constexpr char unknown_endpoint[] = "unknown_endpoint";  // names none of the endpoints
inline constexpr char endpoint_paused[] = "endpoint_paused";    // parked: an operator's pause
inline constexpr char breaker_open[] = "breaker_open";          // parked: the breaker is open
inline constexpr char retry_budget[] = "retry_budget";          // the retry budget refused it
}  // namespace error_class_name

// clang-format off
inline constexpr std::array<std::string_view, 22> error_classes{
    // an answer's status
    "http_1xx", "http_3xx", "http_401", "http_403", "http_410", "http_429", "http_4xx",
    "http_503", "http_5xx",
    // no answer: the transport error
    "connect", "dns", "reset", "timeout", "tls", "protocol", "response_too_large", "ssrf_blocked",
    // moved on without an attempt
    error_class_name::key_parked, error_class_name::unknown_endpoint,
    error_class_name::endpoint_paused, error_class_name::breaker_open,
    error_class_name::retry_budget};
// clang-format on

inline bool is_error_class(std::string_view name) {
  return std::find(error_classes.begin(), error_classes.end(), name) != error_classes.end();
}

}  // namespace courier
