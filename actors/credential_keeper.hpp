#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "core/auth/credential.hpp"
#include "core/auth/token_file.hpp"
#include "core/config/config.hpp"
#include "core/http/poster.hpp"

namespace courier::actors {

struct credential_keeper_settings {
  std::string route;
  auth_config auth;
  // The credential start-up fetched or read already (topology/credentials): the keeper starts
  // with it instead of asking again. None: it fetches (reads) its first itself.
  std::optional<auth::credential> first;
  // How often a bearer token file is checked for a new version.
  std::chrono::milliseconds file_check_interval{1000};
};

struct credential_keeper_state {
  static inline const char* name = "courier.credential_keeper";
  credential_keeper_settings settings;
  std::shared_ptr<http::poster> token_client;  // oauth2: posts to token_url
  std::optional<auth::token_file_watch> file;  // bearer_token_file
  std::string current;                         // the Authorization value; empty: none yet
  std::optional<caf::actor_clock::time_point> expires_at;  // oauth2: of `current`
  std::vector<caf::actor> subscribers;
  std::vector<caf::response_promise> waiters;  // refresh requests the token request answers
  bool fetching = false;
  std::uint64_t fetch = 0;   // the latest token request; an older one's answer is dropped
  std::uint64_t timer = 0;   // the one timer that counts; an older one is dropped
  std::size_t failures = 0;  // token requests failed in a row
  std::string file_problem;  // the bearer token file's last problem, logged once
};

// Keeps one route's Authorization value (routes[].auth) and tells its subscribers (the delivery
// pool) each new one. OAuth2 client credentials: a token fetched from token_url, cached until
// shortly before it expires (auth::refresh_after), refreshed in the background, retried with a
// capped backoff (1 s .. 30 s) while the endpoint fails, the current token kept meanwhile. A
// bearer token file: checked every file_check_interval and re-read when it changed.
//   subscribe_atom, actor         -> () (the subscriber gets credentials_atom, std::string
//                                    now if there is a value, and again on every change)
//   refresh_atom, std::string stale -> std::string (the value to retry with) or an error:
//                                    a value other than `stale` at once; otherwise a new
//                                    token (one request for every refresh asked meanwhile)
//                                    or the file read again
// Its own:
//   refresh_atom, std::uint64_t   (timer: refresh, or check the file)
//   credentials_atom, std::uint64_t fetch, std::int32_t status, std::int32_t transport_error,
//     std::string error_message, std::string body   (the token endpoint's answer)
// No log line holds the client secret or a token.
caf::behavior credential_keeper(caf::stateful_actor<credential_keeper_state>* self,
                                credential_keeper_settings settings,
                                std::shared_ptr<http::poster> token_client);

}  // namespace courier::actors
