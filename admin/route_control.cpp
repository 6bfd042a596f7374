#include "admin/route_control.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include <nlohmann/json.hpp>
#include <openssl/crypto.h>

namespace courier::admin {
namespace {

using nlohmann::json;

constexpr std::string_view prefix = "/routes/";
constexpr std::string_view json_type = "application/json";

admin_reply json_reply(int status, const json& body) {
  // A decoded name need not be UTF-8: replaced, not thrown on.
  return {status,
          std::string{json_type},
          body.dump(-1, ' ', false, json::error_handler_t::replace) + "\n",
          {}};
}

admin_reply error_reply(int status, std::string_view why) {
  return json_reply(status, {{"error", std::string{why}}});
}

std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }

int hex_digit(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

// The segment with each %XX replaced by its byte; nothing for a '%' without two hex digits.
std::optional<std::string> percent_decoded(std::string_view segment) {
  std::string out;
  out.reserve(segment.size());
  for (std::size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] != '%') {
      out.push_back(segment[i]);
      continue;
    }
    if (i + 2 >= segment.size()) {
      return std::nullopt;
    }
    const int high = hex_digit(segment[i + 1]);
    const int low = hex_digit(segment[i + 2]);
    if (high < 0 || low < 0) {
      return std::nullopt;
    }
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return out;
}

struct parsed_path {
  std::string_view name;  // still percent-encoded
  route_action action = route_action::pause;
  std::string_view endpoint;  // still percent-encoded
};

// "endpoints/<endpoint>/pause" or ".../resume".
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters): the path's two parts, named at the call
std::optional<parsed_path> parse_endpoint_verb(std::string_view name, std::string_view verb) {
  constexpr std::string_view endpoints = "endpoints/";
  if (verb.substr(0, endpoints.size()) != endpoints) {
    return std::nullopt;
  }
  const auto rest = verb.substr(endpoints.size());
  const auto slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0) {
    return std::nullopt;
  }
  const auto what = rest.substr(slash + 1);
  if (what == "pause") {
    return parsed_path{name, route_action::endpoint_pause, rest.substr(0, slash)};
  }
  if (what == "resume") {
    return parsed_path{name, route_action::endpoint_resume, rest.substr(0, slash)};
  }
  return std::nullopt;
}

// /routes/<name>/<verb>, <name> one non-empty segment.
std::optional<parsed_path> parse_path(std::string_view path) {
  auto rest = path.substr(prefix.size());
  const auto slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0) {
    return std::nullopt;
  }
  const auto verb = rest.substr(slash + 1);
  const auto name = rest.substr(0, slash);
  if (verb == "pause") {
    return parsed_path{name, route_action::pause, {}};
  }
  if (verb == "resume") {
    return parsed_path{name, route_action::resume, {}};
  }
  if (verb == "auto-redrive") {
    return parsed_path{name, route_action::auto_redrive_preview, {}};
  }
  if (verb == "auto-redrive/stop") {
    return parsed_path{name, route_action::auto_redrive_stop, {}};
  }
  return parse_endpoint_verb(name, verb);
}

bool starts_with_ignoring_case(std::string_view text, std::string_view start) {
  return text.size() >= start.size() &&
         std::equal(start.begin(), start.end(), text.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         });
}

}  // namespace

std::string_view method_of(route_action a) {
  switch (a) {
    case route_action::pause:
    case route_action::resume:
    case route_action::auto_redrive_stop:
    case route_action::endpoint_pause:
    case route_action::endpoint_resume:
      return "POST";
    case route_action::auto_redrive_preview:
      return "GET";
  }
  return "POST";
}

bool is_route_control_target(std::string_view target) {
  return path_of(target).substr(0, prefix.size()) == prefix;
}

// Distinct by role: a request header's value and the configured secret.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
bool bearer_matches(std::string_view authorization, std::string_view token) {
  constexpr std::string_view scheme = "bearer ";
  if (token.empty() || !starts_with_ignoring_case(authorization, scheme)) {
    return false;
  }
  const auto given = authorization.substr(scheme.size());
  // The length is no secret worth hiding (RFC 6750 tokens are not padded); the bytes are.
  return given.size() == token.size() &&
         CRYPTO_memcmp(given.data(), token.data(), token.size()) == 0;
}

std::variant<route_command, admin_reply> decide_route_control(
    const admin_request& req, std::string_view token, const std::vector<std::string>& routes) {
  const auto parsed = parse_path(path_of(req.target));
  if (!parsed) {
    return json_reply(404,
                      {{"error", "not found"},
                       {"endpoints",
                        {"POST /routes/<name>/pause", "POST /routes/<name>/resume",
                         "GET /routes/<name>/auto-redrive", "POST /routes/<name>/auto-redrive/stop",
                         "POST /routes/<name>/endpoints/<endpoint>/pause",
                         "POST /routes/<name>/endpoints/<endpoint>/resume"}}});
  }
  auto name = percent_decoded(parsed->name);
  auto endpoint = percent_decoded(parsed->endpoint);
  if (!name || !endpoint) {
    return error_reply(400, "the route or endpoint name has a malformed percent-escape");
  }
  const auto method = method_of(parsed->action);
  if (req.method != method) {
    auto r = error_reply(405, "method not allowed; use " + std::string{method});
    r.headers.emplace_back("Allow", std::string{method});
    return r;
  }
  if (token.empty()) {
    return error_reply(403,
                       "route control is off: set admin.token (or admin.token_file, or "
                       "--admin-token-file) and send it as Authorization: Bearer <token>");
  }
  if (!bearer_matches(req.authorization, token)) {
    const bool sent = !req.authorization.empty();
    auto r = error_reply(401, sent ? "the bearer token is not the admin token"
                                   : "send the admin token as Authorization: Bearer <token>");
    r.headers.emplace_back("WWW-Authenticate", sent ? R"(Bearer realm="courier admin", )"
                                                      R"(error="invalid_token")"
                                                    : R"(Bearer realm="courier admin")");
    return r;
  }
  if (std::find(routes.begin(), routes.end(), *name) == routes.end()) {
    return json_reply(404, {{"error", "no such route"}, {"route", *name}, {"routes", routes}});
  }
  return route_command{std::move(*name), parsed->action, std::move(*endpoint)};
}

admin_reply render_route_controlled(const route_command& done,
                                    const std::vector<std::string>& partitions_changed) {
  if (!done.endpoint.empty()) {
    return json_reply(200, {{"route", done.route},
                            {"endpoint", done.endpoint},
                            {"paused", done.action == route_action::endpoint_pause}});
  }
  return json_reply(200, {{"route", done.route},
                          {"paused", done.action == route_action::pause},
                          {"partitions_changed", partitions_changed}});
}

}  // namespace courier::admin
