#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include <string>

#include "core/http/client.hpp"
#include "core/model/payload.hpp"

namespace courier::http {

// A request as it goes on the wire: its head serialized once (request_head), its body the
// record's own shared bytes.
struct wire_request {
  std::string head;
  courier::payload body;
};

// One request on its way through the pool: built once, so the transparent retry on a fresh
// connection sends exactly the same bytes.
struct exchange {
  std::shared_ptr<const wire_request> message;
  std::function<void(response)> on_done;
  std::chrono::steady_clock::time_point deadline;
};

}  // namespace courier::http
