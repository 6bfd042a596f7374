#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "core/http/client.hpp"

namespace courier::http {

using wire_request = boost::beast::http::request<boost::beast::http::string_body>;

// One request on its way through the pool: built once, so the transparent retry on a fresh
// connection sends exactly the same bytes.
struct exchange {
  std::shared_ptr<const wire_request> message;
  std::function<void(response)> on_done;
  std::chrono::steady_clock::time_point deadline;
};

}  // namespace courier::http
