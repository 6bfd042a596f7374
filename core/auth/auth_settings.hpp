#pragma once

// A route's credentials as its configuration gives them (routes[].auth; core/config reads them
// into these).

#include <optional>
#include <string>

namespace courier::auth {

// The OAuth2 client-credentials grant (RFC 6749 section 4.4) of routes[].auth.oauth2.
struct oauth2_settings {
  std::string token_url;
  std::string client_id;
  std::string client_secret;  // read from client_secret_file at start-up
  std::string client_secret_file;
  std::string scope;     // empty: not sent
  std::string audience;  // empty: not sent
};

// How a route authenticates (routes[].auth): at most one of the two.
struct auth_settings {
  std::string bearer_token_file;  // Authorization: Bearer <the file's content>, re-read on change
  std::optional<oauth2_settings> oauth2;

  [[nodiscard]] bool any() const { return !bearer_token_file.empty() || oauth2.has_value(); }
};

}  // namespace courier::auth
