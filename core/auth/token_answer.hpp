#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/auth/credential.hpp"
#include "core/http/client.hpp"

namespace courier::auth {

// The lifetime of a token whose answer has no expires_in (RFC 6749 section 5.1 makes it
// optional): refreshed as an hour's token would be, and at once after a 401.
inline constexpr std::chrono::seconds default_token_lifetime{3600};

// What the token endpoint's answer gave: a credential, or why not.
struct token_answer {
  std::optional<credential> token;
  int status = 0;  // the HTTP status, 0 when none came
  // Empty with a token. Otherwise one line for the log and the start-up error: the status and,
  // for an RFC 6749 section 5.2 error answer, its `error` and `error_description`. It never
  // holds a token, the answer's body as it is, or the client secret.
  std::string problem;

  [[nodiscard]] bool ok() const { return token.has_value(); }
};

// Reads the answer to a client-credentials token request (RFC 6749 section 5.1): a 2xx JSON
// object with an access_token of visible ASCII, a token_type of Bearer (any case) and an
// optional expires_in (seconds, a number or a string of digits; default_token_lifetime when
// absent). `client_secret` is cut out of any text the endpoint sent back before it is quoted.
token_answer read_token_answer(const http::response& r, std::string_view client_secret);

}  // namespace courier::auth
