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
// wrong (scheme, host, port, credentials, fragment, characters); the message shows the URL as
// display_url does, never its path or query.
endpoint parse_endpoint(std::string_view url);

// The value of the Host header: the host (bracketed if IPv6) plus ":port" unless the port
// is the scheme's default.
std::string host_header(const endpoint& ep);

// The endpoint for logs, error messages and /state: "scheme://host:port", the port always
// written. Never the path or query: a webhook URL's path is often its secret
// (https://hooks.example/services/T0/B0/SECRET).
std::string to_string(const endpoint& ep);

// A configured URL for logs and error messages, as to_string(endpoint) shows it. A URL that does
// not parse is shown by what precedes its path ("ftp://a.example"), without credentials, or as
// "(not an http(s) URL)" when it has no scheme.
std::string display_url(std::string_view url);

}  // namespace courier::http
