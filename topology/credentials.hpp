#pragma once

#include <map>
#include <string>

#include "core/auth/credential.hpp"
#include "core/config/config.hpp"
#include "core/http/client.hpp"

namespace courier::topology {

// The first credential of every route with routes[].auth, by route name, before anything
// starts: the bearer token file read, the OAuth2 token fetched from token_url. Throws
// config_error (`courier run` exits 2) naming routes[N].auth.bearer_token_file (missing,
// unreadable, empty) or routes[N].auth.oauth2.token_url (unreachable, refusing with its RFC 6749
// error, answering no Bearer token) and why; never a secret or a token.
// An endpoint of a route with several has its own, under credentials_key(route, endpoint).
std::map<std::string, auth::credential> first_credentials(const courier_config& cfg);

// The name first_credentials gives an endpoint's credential: the route's for a route with one
// endpoint (named after it), "<route>/<endpoint>" otherwise.
std::string credentials_key(const std::string& route, const std::string& endpoint);

}  // namespace courier::topology
