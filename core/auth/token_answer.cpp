#include "core/auth/token_answer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <utility>

#include <nlohmann/json.hpp>

namespace courier::auth {
namespace {

using json = nlohmann::json;

// Far beyond any real token's, and small enough that no later arithmetic overflows.
constexpr std::int64_t longest_lifetime_s = 366LL * 24 * 3600;
constexpr std::size_t longest_quote = 200;

bool visible_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7F; });
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Text the endpoint chose, made safe for one log line: printable ASCII only, bounded, and
// without the client secret (an endpoint that echoes what it was sent must not put it in a log).
// Distinct by role: what is quoted, and what is cut out of it.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
std::string quoted(std::string_view text, std::string_view client_secret) {
  std::string redacted{text};
  if (!client_secret.empty()) {
    for (auto at = redacted.find(client_secret); at != std::string::npos;
         at = redacted.find(client_secret, at)) {
      redacted.replace(at, client_secret.size(), "[redacted]");
    }
  }
  std::string out;
  for (const char c : std::string_view{redacted}.substr(0, longest_quote)) {
    out.push_back(c >= 0x20 && c < 0x7F ? c : '?');
  }
  if (redacted.size() > longest_quote) {
    out += "...";
  }
  return out;
}

std::string string_field(const json& j, const char* name) {
  const auto it = j.find(name);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

// RFC 6749 section 5.2: {"error": "invalid_client", "error_description": "..."}.
std::string error_answer(int status, const std::string& body, std::string_view client_secret) {
  std::string out = "the token endpoint answered " + std::to_string(status);
  const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  const std::string error = j.is_object() ? string_field(j, "error") : std::string{};
  if (error.empty()) {
    return out + " without an RFC 6749 error";
  }
  out += ": " + quoted(error, client_secret);
  const std::string description = string_field(j, "error_description");
  if (!description.empty()) {
    out += " (" + quoted(description, client_secret) + ")";
  }
  return out;
}

token_answer refused(int status, std::string problem) {
  token_answer a;
  a.status = status;
  a.problem = std::move(problem);
  return a;
}

// expires_in as a number of seconds, or nothing when it is neither a whole number nor a string
// of digits.
std::optional<std::int64_t> seconds_of(const json& v) {
  if (v.is_number_unsigned()) {
    return static_cast<std::int64_t>(
        std::min(v.get<std::uint64_t>(), static_cast<std::uint64_t>(longest_lifetime_s)));
  }
  if (v.is_number_integer()) {
    return v.get<std::int64_t>();
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d >= 0 && d < static_cast<double>(longest_lifetime_s)) {
      return static_cast<std::int64_t>(d);
    }
    return d < 0 ? std::nullopt : std::optional<std::int64_t>{longest_lifetime_s};
  }
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s.empty() || s.size() > 12 ||
        !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    return std::stoll(s);
  }
  return std::nullopt;
}

}  // namespace

token_answer read_token_answer(const http::response& r, std::string_view client_secret) {
  if (r.status == 0) {
    return refused(0,
                   "the token endpoint did not answer: " +
                       quoted(r.error_message.empty() ? std::string{"no answer"} : r.error_message,
                              client_secret));
  }
  if (r.error != transport_error::none) {
    return refused(r.status, "the token endpoint's answer (" + std::to_string(r.status) +
                                 ") could not be read: " + quoted(r.error_message, client_secret));
  }
  if (r.status < 200 || r.status > 299) {
    return refused(r.status, error_answer(r.status, r.body, client_secret));
  }
  const std::string answered = "the token endpoint answered " + std::to_string(r.status);
  const json j = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    return refused(r.status, answered + " with a body that is not a JSON object");
  }
  const std::string token = string_field(j, "access_token");
  if (token.empty()) {
    return refused(r.status, answered + " without an access_token");
  }
  if (!visible_ascii(token)) {
    return refused(r.status, answered +
                                 " with an access_token an Authorization header cannot carry "
                                 "(characters other than visible ASCII)");
  }
  const std::string type = string_field(j, "token_type");
  if (!equals_ignoring_case(type, "bearer")) {
    return refused(r.status, answered + " with token_type \"" + quoted(type, client_secret) +
                                 "\"; courier sends Bearer tokens only");
  }
  std::chrono::seconds lifetime = default_token_lifetime;
  if (const auto it = j.find("expires_in"); it != j.end() && !it->is_null()) {
    const auto seconds = seconds_of(*it);
    if (!seconds || *seconds < 0) {
      return refused(r.status, answered + " with an expires_in that is not a number of seconds");
    }
    lifetime = std::chrono::seconds{std::min(*seconds, longest_lifetime_s)};
  }
  token_answer a;
  a.status = r.status;
  a.token = credential{bearer_authorization(token), lifetime};
  return a;
}

}  // namespace courier::auth
