#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/delivery_id.hpp"
#include "core/model/transport_error.hpp"

namespace courier {

// One finished HTTP attempt, as the HTTP client reported it, for the delivery it belongs to.
struct attempt_answer {
  delivery_id id{};
  int status = 0;  // 0 when `transport` says why there was no answer
  transport_error transport = transport_error::none;
  std::string error_message;
  std::optional<std::string> retry_after;  // the receiver's Retry-After header
  std::string body;                        // the first bytes of the receiver's answer
  // The answer's headers routes[].receipts.response_headers names, as it sent them.
  std::vector<std::pair<std::string, std::string>> response_headers;
  std::chrono::nanoseconds duration{0};  // from the request handed to the client to here
};

}  // namespace courier
