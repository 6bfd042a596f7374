#include "actors/credential_keeper.hpp"

#include <stdexcept>
#include <utility>

#include "actors/failure_log.hpp"
#include "actors/messages.hpp"
#include "core/auth/refresh_schedule.hpp"
#include "core/auth/token_answer.hpp"
#include "core/auth/token_request.hpp"
#include "core/http/client.hpp"
#include "core/http/endpoint.hpp"
#include "core/log/json_log.hpp"

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<credential_keeper_state>*;

std::int64_t whole_seconds(caf::timespan d) {
  return std::chrono::duration_cast<std::chrono::seconds>(d).count();
}

void arm(self_ptr self, std::chrono::milliseconds after) {
  self->delayed_send(self, after, refresh_atom::value, ++self->state.timer);
}

// The value becomes the current one; subscribers hear of it only when it changed.
void adopt(self_ptr self, std::string authorization) {
  auto& st = self->state;
  if (authorization == st.current) {
    return;
  }
  st.current = std::move(authorization);
  for (const auto& s : st.subscribers) {
    self->send(s, credentials_atom::value, st.current);
  }
}

// How long the current token still holds, for a log line: never the token itself.
nlohmann::json current_token(self_ptr self) {
  const auto& st = self->state;
  if (st.current.empty()) {
    return "none";
  }
  if (!st.expires_at) {
    return "held";
  }
  const auto left = *st.expires_at - self->clock().now();
  return left > caf::timespan::zero()
           ? nlohmann::json("expires in " + std::to_string(whole_seconds(left)) + " s")
           : nlohmann::json("expired");
}

// -- oauth2 ----------------------------------------------------------------------------------

void fetch_token(self_ptr self) {
  auto& st = self->state;
  if (st.fetching) {
    return;  // whoever asks meanwhile is answered by the request under way
  }
  st.fetching = true;
  const std::uint64_t id = ++st.fetch;
  caf::weak_actor_ptr keeper{self->ctrl()};
  st.token_client->post(
    auth::client_credentials_request(*st.settings.auth.oauth2), [keeper, id](http::response r) {
      if (auto strong = keeper.lock()) {
        caf::anon_send(caf::actor_cast<caf::actor>(strong), credentials_atom::value, id,
                       static_cast<std::int32_t>(r.status), static_cast<std::int32_t>(r.error),
                       std::move(r.error_message), std::move(r.body));
      }
    });
}

void on_token_answer(self_ptr self, const http::response& r) {
  auto& st = self->state;
  const auto& oauth2 = *st.settings.auth.oauth2;
  st.fetching = false;
  const auto answer = auth::read_token_answer(r, oauth2.client_secret);
  auto waiters = std::move(st.waiters);
  st.waiters.clear();
  if (answer.ok()) {
    st.failures = 0;
    st.expires_at = self->clock().now() + answer.token->lifetime;
    adopt(self, answer.token->authorization);
    const auto next = auth::refresh_after(answer.token->lifetime);
    arm(self, next);
    log::info("token fetched", {{"route", st.settings.route},
                                {"token_url", http::display_url(oauth2.token_url)},
                                {"expires_in_s", answer.token->lifetime.count()},
                                {"refresh_in_s", whole_seconds(next)}});
    for (auto& w : waiters) {
      w.deliver(st.current);
    }
    return;
  }
  ++st.failures;
  const auto retry = auth::refresh_retry_after(st.failures);
  arm(self, retry);
  log::error("token request failed", {{"route", st.settings.route},
                                      {"token_url", http::display_url(oauth2.token_url)},
                                      {"status", answer.status},
                                      {"error", answer.problem},
                                      {"failures", st.failures},
                                      {"retry_in_ms", retry.count()},
                                      {"current_token", current_token(self)}});
  for (auto& w : waiters) {
    w.deliver(caf::make_error(caf::sec::runtime_error, "token request failed: " + answer.problem));
  }
}

// -- bearer token file -----------------------------------------------------------------------

void check_file(self_ptr self) {
  auto& st = self->state;
  const auto c = st.file->poll();
  switch (c.what) {
    case auth::token_file_watch::outcome::unchanged:
      if (!st.file_problem.empty()) {
        log::info("bearer token file readable again",
                  {{"route", st.settings.route}, {"bearer_token_file", st.file->path()}});
        st.file_problem.clear();
      }
      break;
    case auth::token_file_watch::outcome::changed:
      log::info(st.current.empty() ? "bearer token file read" : "bearer token file changed",
                {{"route", st.settings.route}, {"bearer_token_file", st.file->path()}});
      st.file_problem.clear();
      adopt(self, auth::bearer_authorization(c.token));
      break;
    case auth::token_file_watch::outcome::failed:
      if (c.problem != st.file_problem) {
        log::error("bearer token file unusable; the current token is kept",
                   {{"route", st.settings.route},
                    {"bearer_token_file", st.file->path()},
                    {"error", c.problem},
                    {"current_token", current_token(self)}});
        st.file_problem = c.problem;
      }
      break;
  }
}

// On a 401: the file read again now, whatever its identity says.
caf::result<std::string> reread_file(self_ptr self, const std::string& stale) {
  auto& st = self->state;
  const auto c = st.file->reread();
  switch (c.what) {
    case auth::token_file_watch::outcome::changed:
      log::info("bearer token file changed",
                {{"route", st.settings.route}, {"bearer_token_file", st.file->path()}});
      st.file_problem.clear();
      adopt(self, auth::bearer_authorization(c.token));
      return st.current;
    case auth::token_file_watch::outcome::unchanged:
      if (!st.current.empty() && st.current != stale) {
        return st.current;
      }
      return caf::make_error(
        caf::sec::runtime_error,
        "the bearer token file " + st.file->path() + " still holds the token the endpoint refused");
    case auth::token_file_watch::outcome::failed:
      return caf::make_error(caf::sec::runtime_error, c.problem);
  }
  return caf::make_error(caf::sec::runtime_error, "unreachable");
}

// The first value: start-up's, or fetched (read) now; then the timer.
void start(self_ptr self) {
  auto& st = self->state;
  const auth_config& config = st.settings.auth;
  if (config.oauth2) {
    if (!st.token_client) {
      throw std::invalid_argument{"credential_keeper: oauth2 needs a token client"};
    }
    log::info("credential keeper started",
              {{"route", st.settings.route},
               {"auth", "oauth2"},
               {"token_url", http::display_url(config.oauth2->token_url)}});
    if (st.settings.first) {
      st.current = st.settings.first->authorization;
      st.expires_at = self->clock().now() + st.settings.first->lifetime;
      arm(self, auth::refresh_after(st.settings.first->lifetime));
    } else {
      fetch_token(self);
    }
  } else {
    log::info("credential keeper started", {{"route", st.settings.route},
                                            {"auth", "bearer_token_file"},
                                            {"bearer_token_file", config.bearer_token_file}});
    if (st.settings.first) {
      st.current = st.settings.first->authorization;
      // The token the file held at start-up; the file is told apart by its version from now on.
      const std::string prefix = "Bearer ";
      st.file.emplace(config.bearer_token_file, st.current.substr(prefix.size()));
    } else {
      st.file.emplace(config.bearer_token_file);
      check_file(self);
    }
    arm(self, st.settings.file_check_interval);
  }
}

}  // namespace

caf::behavior credential_keeper(self_ptr self, credential_keeper_settings settings,
                                std::shared_ptr<http::poster> token_client) {
  log_failures(self, "credential_keeper", settings.route);
  self->state.settings = std::move(settings);
  self->state.token_client = std::move(token_client);
  start(self);
  return {
    [=](subscribe_atom, caf::actor subscriber) {
      auto& st = self->state;
      if (!st.current.empty()) {
        self->send(subscriber, credentials_atom::value, st.current);
      }
      st.subscribers.push_back(std::move(subscriber));
    },
    [=](refresh_atom, const std::string& stale) -> caf::result<std::string> {
      auto& st = self->state;
      if (!st.current.empty() && st.current != stale) {
        return st.current;  // refreshed since the request that was refused went out
      }
      if (st.file) {
        return reread_file(self, stale);
      }
      auto rp = self->make_response_promise();
      st.waiters.push_back(rp);
      fetch_token(self);
      return rp;
    },
    [=](refresh_atom, std::uint64_t timer) {
      auto& st = self->state;
      if (timer != st.timer) {
        return;  // superseded by a later arm()
      }
      if (st.file) {
        check_file(self);
        arm(self, st.settings.file_check_interval);
      } else {
        fetch_token(self);
      }
    },
    // Distinct by role: the fields of the message fetch_token sends, in its order.
    // NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
    [=](credentials_atom, std::uint64_t fetch, std::int32_t status, std::int32_t error,
        std::string& error_message, std::string& body) {
      if (fetch != self->state.fetch) {
        return;
      }
      http::response r;
      r.status = status;
      r.error = static_cast<transport_error>(error);
      r.error_message = std::move(error_message);
      r.body = std::move(body);
      on_token_answer(self, r);
    },
  };
}

}  // namespace courier::actors
