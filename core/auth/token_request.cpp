#include "core/auth/token_request.hpp"

#include <array>
#include <utility>

#include "core/crypto/base64.hpp"

namespace courier::auth {
namespace {

bool kept_as_is(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '*' ||
         c == '-' || c == '.' || c == '_';
}

}  // namespace

std::string form_urlencode(std::string_view text) {
  constexpr std::array<char, 16> hex{'0', '1', '2', '3', '4', '5', '6', '7',
                                     '8', '9', 'A', 'B', 'C', 'D', 'E', 'F'};
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (kept_as_is(c)) {
      out.push_back(ch);
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4U]);
      out.push_back(hex[c & 0x0FU]);
    }
  }
  return out;
}

std::string basic_client_authorization(std::string_view client_id, std::string_view client_secret) {
  return "Basic " + base64_encode(form_urlencode(client_id) + ":" + form_urlencode(client_secret));
}

http::request client_credentials_request(const oauth2_settings& c) {
  std::string body = "grant_type=client_credentials";
  if (!c.scope.empty()) {
    body += "&scope=" + form_urlencode(c.scope);
  }
  if (!c.audience.empty()) {
    body += "&audience=" + form_urlencode(c.audience);
  }
  http::request r;
  r.body = payload{std::move(body)};
  r.content_type = "application/x-www-form-urlencoded";
  r.headers = {{"Authorization", basic_client_authorization(c.client_id, c.client_secret)},
               {"Accept", "application/json"}};
  return r;
}

}  // namespace courier::auth
