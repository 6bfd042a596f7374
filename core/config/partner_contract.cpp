// The rules of a route's partner contract that span fields (headers, forward_record_headers,
// auth, credentials over http://), part of validate() (config_validation.cpp); each field's
// own checks are in its field list (config_fields.hpp).

#include "core/config/partner_contract.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>

#include "core/config/config_fields.hpp"
#include "core/config/config_key.hpp"
#include "core/http/endpoint.hpp"
#include "core/time/duration.hpp"

namespace courier::config_detail {
namespace {

// Distinct by role: the header's name, and the config key that names it in errors.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
void check_header_name(const std::string& name, const std::string& key, bool authenticated) {
  header_token(key, name);
  if (const auto why = reserved_header(name)) {
    throw config_error{key, std::string{*why}};
  }
  if (authenticated && equals_ignoring_case(name, "authorization")) {
    throw config_error{key, "is set by routes[].auth; remove one of the two"};
  }
}

bool is_cleartext(std::string_view url) {
  constexpr std::string_view http = "http://";
  return url.size() >= http.size() && equals_ignoring_case(url.substr(0, http.size()), http);
}

// Credentials cross the network only over TLS unless the route says otherwise: one error, for
// the first credential found, naming its key.
void check_cleartext(const route_config& r, const std::string& path) {
  if (r.allow_insecure_http) {
    return;
  }
  const auto key = [&](const auto& member) { return join_key(path, key_path(r, member)); };
  const auto refuse = [&](const std::string& k, const std::string& what) {
    throw config_error{k, "would send " + what +
                              " in cleartext over http://; use https:// or set " +
                              key(r.allow_insecure_http) + ": true"};
  };
  if (r.auth.oauth2 && is_cleartext(r.auth.oauth2->token_url)) {
    refuse(key(r.auth.oauth2->token_url),
           "the OAuth2 client secret (HTTP Basic) and the tokens it gets");
  }
  if (!is_cleartext(r.url)) {
    return;
  }
  if (!r.auth.bearer_token_file.empty()) {
    refuse(key(r.auth.bearer_token_file), "the bearer token to the route's url");
  }
  if (r.auth.oauth2) {
    refuse(key(r.auth.oauth2), "the OAuth2 access token to the route's url");
  }
  for (const auto& h : r.headers) {
    if (h.source != "inline") {
      refuse(join_key(key(r.headers), h.name),
             "a header value from a secret (" + h.source + ") to the route's url");
    }
  }
  if (r.url_source != "inline") {
    refuse(key(r.url), "a url read from a secret (" + r.url_source + ")");
  }
}

}  // namespace

bool is_token(std::string_view s) {
  if (s.empty()) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) != 0 ||
           std::string_view{"!#$%&'*+-.^_`|~"}.find(c) != std::string_view::npos;
  });
}

bool is_plain_header_value(std::string_view v) {
  return std::all_of(v.begin(), v.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c >= 0x20 && c <= 0x7e) || c == '\t';
  });
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<std::string_view> reserved_header(std::string_view name) {
  static constexpr std::array<std::string_view, 10> hop_by_hop{"connection",
                                                               "keep-alive",
                                                               "proxy-authenticate",
                                                               "proxy-authorization",
                                                               "proxy-connection",
                                                               "te",
                                                               "trailer",
                                                               "transfer-encoding",
                                                               "upgrade",
                                                               "expect"};
  static constexpr std::array<std::string_view, 6> courier_own{
      "content-length", "host",       "idempotency-key",
      "x-signature",    "webhook-id", "webhook-timestamp"};
  for (const auto h : hop_by_hop) {
    if (equals_ignoring_case(name, h)) {
      return "is a hop-by-hop header; courier manages the connection";
    }
  }
  for (const auto h : courier_own) {
    if (equals_ignoring_case(name, h)) {
      return "is a header courier sets on every request";
    }
  }
  if (equals_ignoring_case(name, "content-type")) {
    return "is set by routes[].content_type (or the record's content-type header)";
  }
  if (equals_ignoring_case(name, "webhook-signature")) {
    return "is a header courier sets on every request (signing)";
  }
  return std::nullopt;
}

void validate_partner_contract(const route_config& r, const std::string& path) {
  const bool authenticated = r.auth.any();
  const std::string hs = join_key(path, key_path(r, r.headers));
  for (std::size_t i = 0; i < r.headers.size(); ++i) {
    const auto& h = r.headers[i];
    const std::string key = join_key(hs, h.name);
    check_header_name(h.name, key, authenticated);
    for (std::size_t j = 0; j < i; ++j) {
      if (equals_ignoring_case(r.headers[j].name, h.name)) {
        throw config_error{key, "repeats header " + in_quotes(r.headers[j].name)};
      }
    }
    // The value is never quoted: it may be a secret. What a forwarded header may carry.
    if (!is_plain_header_value(h.value)) {
      throw config_error{key, "its value (" + h.source +
                                  ") holds a byte a header value cannot carry (only visible "
                                  "ASCII, space and tab)"};
    }
    if (h.value.empty()) {
      throw config_error{key, "its value (" + h.source + ") is empty"};
    }
  }
  const std::string fw = join_key(path, key_path(r, r.forward_record_headers));
  for (std::size_t i = 0; i < r.forward_record_headers.size(); ++i) {
    const auto& name = r.forward_record_headers[i];
    const std::string key = fw + "[" + std::to_string(i) + "]";
    check_header_name(name, key, authenticated);
    if (equals_ignoring_case(name, "authorization")) {
      throw config_error{key, "would send a record's credentials to the partner"};
    }
    for (const auto& h : r.headers) {
      if (equals_ignoring_case(h.name, name)) {
        throw config_error{key, "is also a static header (routes[].headers." + h.name + ")"};
      }
    }
  }
  check_cleartext(r, path);
}

}  // namespace courier::config_detail

namespace courier {
namespace {

std::string number(double d) {
  std::ostringstream out;
  out << d;
  return out.str();
}

}  // namespace

std::vector<std::string> describe_partner_contract(const route_config& r) {
  std::vector<std::string> out;
  if (r.rate_limit) {
    out.push_back("rate_limit: " + number(r.rate_limit->requests_per_second) +
                  " requests/s, burst " + number(r.rate_limit->effective_burst()) +
                  ", shared by the source partitions");
  } else {
    out.emplace_back("rate_limit: none");
  }
  if (r.retry_budget) {
    out.push_back("retry_budget: " + number(r.retry_budget->ratio) + " of first attempts + " +
                  number(r.retry_budget->min_per_second) + "/s over " +
                  format_duration(r.retry_budget->window));
  } else {
    out.emplace_back("retry_budget: none");
  }
  if (r.headers.empty()) {
    out.emplace_back("headers: none");
  }
  for (const auto& h : r.headers) {
    out.push_back("header " + h.name + ": " + h.source);
  }
  if (!r.auth.bearer_token_file.empty()) {
    out.push_back("auth: bearer token from " + r.auth.bearer_token_file +
                  " (re-read when it changes)");
  } else if (r.auth.oauth2) {
    out.push_back("auth: oauth2 client credentials of " + r.auth.oauth2->client_id + " from " +
                  http::display_url(r.auth.oauth2->token_url) + " (secret from " +
                  r.auth.oauth2->client_secret_file + ")");
  } else {
    out.emplace_back("auth: none");
  }
  std::string forwarded;
  for (const auto& name : r.forward_record_headers) {
    forwarded += (forwarded.empty() ? "" : ", ") + name;
  }
  out.push_back("forward_record_headers: " + (forwarded.empty() ? std::string{"none"} : forwarded));
  return out;
}

std::vector<std::string> describe_endpoints(const route_config& r) {
  std::vector<std::string> out;
  if (r.endpoint_from.value) {
    out.push_back("endpoint_from: " + r.endpoint_from.value->describe() +
                  " (a name of no endpoint: " + std::string{to_string(r.on_unknown_endpoint)} +
                  ")");
  } else {
    out.emplace_back("endpoints: each record to every endpoint whose filter matches");
  }
  for (const auto& e : endpoints_of(r)) {
    out.push_back("endpoint " + e.name + ": " + http::display_url(e.settings.url));
    if (!r.endpoint_from.value) {
      out.push_back("  filter: " +
                    (e.filter ? e.filter->describe() : std::string{"none (every record)"}));
    }
    for (const auto& line : describe_partner_contract(e.settings)) {
      out.push_back("  " + line);
    }
  }
  return out;
}

}  // namespace courier
