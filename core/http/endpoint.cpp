#include "core/http/endpoint.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

namespace courier::http {

namespace {

// What precedes the path of a URL that may not parse, without credentials and without
// characters a log line should not carry.
std::string authority_of_unparsed(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) {
    return "(not an http(s) URL)";
  }
  const std::string_view rest = url.substr(scheme_end + 3);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  std::string shown{url.substr(0, scheme_end + 3)};
  shown += authority;
  for (char& c : shown) {
    if (std::iscntrl(static_cast<unsigned char>(c)) != 0 || c == ' ') {
      c = '?';
    }
  }
  return shown;
}

[[noreturn]] void fail(std::string_view url, const std::string& what) {
  throw std::invalid_argument("invalid endpoint URL '" + authority_of_unparsed(url) + "': " + what);
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::uint16_t default_port(std::string_view scheme) { return scheme == "https" ? 443 : 80; }

std::uint16_t parse_port(std::string_view url, std::string_view text) {
  if (text.empty()) {
    fail(url, "empty port after ':'");
  }
  unsigned value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end) {
    fail(url, "port '" + std::string(text) + "' is not a number");
  }
  if (value == 0 || value > 65535) {
    fail(url, "port " + std::string(text) + " is out of range 1..65535");
  }
  return static_cast<std::uint16_t>(value);
}

}  // namespace

endpoint parse_endpoint(std::string_view url) {
  for (const char c : url) {
    // Spaces and control characters would end up verbatim in the request line.
    if (std::iscntrl(static_cast<unsigned char>(c)) != 0 || c == ' ') {
      fail(url, "contains whitespace or control characters");
    }
  }
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) {
    fail(url, "missing scheme (expected http:// or https://)");
  }
  endpoint ep;
  ep.scheme = lowercase(url.substr(0, scheme_end));
  if (ep.scheme != "http" && ep.scheme != "https") {
    fail(url, "unsupported scheme '" + ep.scheme + "' (expected http or https)");
  }

  std::string_view rest = url.substr(scheme_end + 3);
  const auto authority_end = rest.find_first_of("/?#");
  const std::string_view authority = rest.substr(0, authority_end);
  std::string_view target =
      authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);

  if (authority.find('@') != std::string_view::npos) {
    // We would silently drop them otherwise; secrets belong in the route's config.
    fail(url, "credentials in the URL are not supported");
  }
  if (target.find('#') != std::string_view::npos) {
    fail(url, "fragment ('#...') is not allowed");
  }

  std::string_view port_text;
  bool has_port = false;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) {
      fail(url, "unterminated IPv6 literal in host");
    }
    ep.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        fail(url, "unexpected characters after IPv6 literal");
      }
      has_port = true;
      port_text = after.substr(1);
    }
  } else {
    const auto colon = authority.find(':');
    ep.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      has_port = true;
      port_text = authority.substr(colon + 1);
    }
  }
  if (ep.host.empty()) {
    fail(url, "missing host");
  }
  ep.host = lowercase(ep.host);
  ep.port = has_port ? parse_port(url, port_text) : default_port(ep.scheme);

  if (target.empty()) {
    ep.target = "/";
  } else if (target.front() == '?') {
    ep.target = "/" + std::string(target);
  } else {
    ep.target = std::string(target);
  }
  return ep;
}

std::string host_header(const endpoint& ep) {
  std::string host = ep.host.find(':') != std::string::npos ? "[" + ep.host + "]" : ep.host;
  if (ep.port != default_port(ep.scheme)) {
    host += ":" + std::to_string(ep.port);
  }
  return host;
}

std::string to_string(const endpoint& ep) {
  const std::string host = ep.host.find(':') != std::string::npos ? "[" + ep.host + "]" : ep.host;
  return ep.scheme + "://" + host + ":" + std::to_string(ep.port);
}

std::string display_url(std::string_view url) {
  try {
    return to_string(parse_endpoint(url));
  } catch (const std::invalid_argument&) {
    return authority_of_unparsed(url);  // shown, not judged: validation tells what is wrong
  }
}

}  // namespace courier::http
