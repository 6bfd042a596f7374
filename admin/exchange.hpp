#pragma once

// One exchange on the admin listener, as its handlers see it: what was asked and what to answer.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace courier::admin {

// Views into the listener's parsed request: valid while the handler runs.
struct admin_request {
  std::string_view method;
  std::string_view target;
  std::string_view authorization;  // the Authorization header's value; empty: none was sent
};

struct admin_reply {
  int status = 200;
  std::string content_type;
  std::string body;
  // Further response headers (WWW-Authenticate, Allow); the listener sets Server,
  // Content-Type, Cache-Control and Content-Length itself.
  std::vector<std::pair<std::string, std::string>> headers{};
};

}  // namespace courier::admin
