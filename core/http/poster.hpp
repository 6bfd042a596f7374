#pragma once

#include <functional>

namespace courier::http {

// client.hpp's: what goes out and what comes back.
struct request;
struct response;

// What the delivery pool needs of an HTTP client: a request POSTed to the route's endpoint and
// answered once through on_done. http::client (Boost.Beast) is the real one, and its post()
// says what it promises; an actor test passes a fake that the test answers itself.
class poster {
 public:
  virtual ~poster() = default;

  virtual void post(request r, std::function<void(response)> on_done) = 0;
};

}  // namespace courier::http
