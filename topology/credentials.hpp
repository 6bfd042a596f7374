#pragma once

#include <map>
#include <string>

#include "core/auth/credential.hpp"
#include "core/config/config.hpp"
#include "core/http/client.hpp"

namespace courier::topology {

// The HTTP client of a route's token endpoint (routes[].auth.oauth2.token_url): the route's
// SSRF guard (allow_private_targets), TLS verification (its tls block) and http.timeout, as
// its deliveries have them; two connections at most.
http::client_settings token_client_settings(const route_config& route);

// The first credential of every route with routes[].auth, by route name, before anything
// starts: the bearer token file read, the OAuth2 token fetched from token_url. Throws
// config_error (`courier run` exits 2) naming routes[N].auth.bearer_token_file (missing,
// unreadable, empty) or routes[N].auth.oauth2.token_url (unreachable, refusing with its RFC 6749
// error, answering no Bearer token) and why; never a secret or a token.
std::map<std::string, auth::credential> first_credentials(const courier_config& cfg);

}  // namespace courier::topology
