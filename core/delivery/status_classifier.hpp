#pragma once

#include <string>
#include <string_view>

#include "core/model/transport_error.hpp"

namespace courier {

// What one HTTP attempt means for the record (DESIGN.md section 3).
enum class delivery_class { delivered, retriable, permanent };

// 2xx delivered; 408, 409, 429 and 5xx retriable; 3xx, 410 and other 4xx (and 1xx) permanent.
// What a permanent answer does is the answer judge's: 401, 403 and 410 are about the endpoint
// and hold their record (answer_judge.hpp).
delivery_class classify_status(int status);

// Every transport error is retriable (the receiver may answer next time) except ssrf_blocked,
// which is permanent: it is about the route, not the receiver's mood.
delivery_class classify_transport(transport_error error);

// A final answer's status (200-599). Reported with a transport error, it is an answer whose
// headers were read whole and whose body then failed: the status, not the error, says what the
// receiver decided (DESIGN.md section 3: a 2xx is delivered).
bool is_final_status(int status);

// Stable, machine-readable error class (of the status when is_final_status, even beside an
// error): "http_503", "http_429", "http_401", "http_403",
// "http_410", "http_4xx" (other 4xx), "http_3xx", "http_5xx" (other 5xx), "timeout", "connect",
// "dns", "reset", "tls", "protocol", "response_too_large", "ssrf_blocked". Used in logs, metrics
// and (later) DLQ headers.
std::string error_class(int status, transport_error error);

std::string_view to_string(delivery_class c);

}  // namespace courier
