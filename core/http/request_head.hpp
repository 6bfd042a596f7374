#pragma once

#include <string>

#include "core/http/client.hpp"
#include "core/http/endpoint.hpp"

namespace courier::http {

// The request line and header block of one POST, ready for the wire (ending in the blank
// line): Host, User-Agent, Content-Type, then the request's headers, then Content-Length. A
// request header whose name (case-insensitively) is already there replaces its value, a
// repeated one keeps its last value, and Content-Length and Transfer-Encoding are always
// courier's own: the body follows as it is, r.body.size() bytes. The caller has checked the
// names and values (client::post refuses CR, LF and NUL).
std::string request_head(const endpoint& ep, const std::string& user_agent, const request& r);

}  // namespace courier::http
