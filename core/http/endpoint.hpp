#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace courier::http {

// Where a route delivers to, split once at configuration time so that every request does
// not parse the URL again.
struct endpoint {
  std::string scheme;  // "http" or "https", lowercase
  std::string host;    // name or IP literal; an IPv6 literal is kept without brackets
  std::uint16_t port = 0;
  std::string target;  // path and query, never empty ("/" when the URL has no path)
};

// Parses an absolute http:// or https:// URL. Throws std::invalid_argument naming what is
// wrong (scheme, host, port, credentials, fragment, characters). https:// is accepted here
// so that configuration can be validated up front; `client` refuses it until TLS lands.
endpoint parse_endpoint(std::string_view url);

// The value of the Host header: the host (bracketed if IPv6) plus ":port" unless the port
// is the scheme's default.
std::string host_header(const endpoint& ep);

// The URL again, for logs and error messages.
std::string to_string(const endpoint& ep);

}  // namespace courier::http
