#pragma once

#include <chrono>
#include <memory>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "mock_webhook/partner_state.hpp"

namespace courier::mock {

using wire_request = boost::beast::http::request<boost::beast::http::string_body>;
using wire_response = boost::beast::http::response<boost::beast::http::string_body>;

// What a session should do with one request: answer (maybe after a delay), or hang.
// Its implicit move assignment is not noexcept because Beast's message's is not; a reply is
// only moved into the session that writes it, where an exception ends that session.
struct reply {  // NOLINT(bugprone-exception-escape)
  wire_response message;
  std::chrono::milliseconds delay{0};
  bool hang = false;  // send nothing, close after hang_for
};

// The partner's routes: POST /deliver, GET /health, GET /stats, GET|POST /chaos,
// POST /chaos/clear. No I/O here, so every route is a plain function of the request.
class router {
 public:
  explicit router(std::shared_ptr<partner_state> state);

  reply handle(const wire_request& req);

 private:
  reply deliver(const wire_request& req);
  reply set_chaos(const wire_request& req);
  reply set_secret(const wire_request& req);

  std::shared_ptr<partner_state> state_;
};

}  // namespace courier::mock
