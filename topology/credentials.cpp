#include "topology/credentials.hpp"

#include <future>
#include <memory>
#include <stdexcept>
#include <utility>

#include "core/auth/token_answer.hpp"
#include "core/auth/token_file.hpp"
#include "core/auth/token_request.hpp"
#include "core/http/endpoint.hpp"
#include "core/http/io_runner.hpp"
#include "core/log/json_log.hpp"
#include "topology/route_settings.hpp"

namespace courier::topology {
namespace {

auth::credential fetch_first_token(const route_config& route, const std::string& key) {
  const auto& oauth2 = *route.auth.oauth2;
  http::io_runner io;
  std::unique_ptr<http::client> client;
  try {
    client = std::make_unique<http::client>(io.context(), http::parse_endpoint(oauth2.token_url),
                                            token_client_settings(route));
  } catch (const std::invalid_argument& e) {
    throw config_error{key, e.what()};
  }
  auto answered = std::make_shared<std::promise<http::response>>();
  auto answer = answered->get_future();
  client->post(auth::client_credentials_request(oauth2),
               [answered](http::response r) { answered->set_value(std::move(r)); });
  // The client answers within its timeout, counted from post(); the margin is the io thread's.
  if (answer.wait_for(route.http.timeout + std::chrono::seconds{5}) != std::future_status::ready) {
    throw config_error{key, "the token endpoint did not answer within http.timeout"};
  }
  const auto read = auth::read_token_answer(answer.get(), oauth2.client_secret);
  client.reset();  // before its io_context
  io.stop();
  if (!read.ok()) {
    throw config_error{key, read.problem};
  }
  log::info("token fetched", {{"route", route.name},
                              {"token_url", http::display_url(oauth2.token_url)},
                              {"expires_in_s", read.token->lifetime.count()}});
  return *read.token;
}

}  // namespace

std::string credentials_key(const std::string& route, const std::string& endpoint) {
  return endpoint == route ? route : route + "/" + endpoint;
}

std::map<std::string, auth::credential> first_credentials(const courier_config& cfg) {
  std::map<std::string, auth::credential> out;
  for (std::size_t i = 0; i < cfg.routes.size(); ++i) {
    const auto endpoints = endpoints_of(cfg.routes[i]);
    for (std::size_t j = 0; j < endpoints.size(); ++j) {
      const auto& route = endpoints[j].settings;
      const std::string key =
          "routes[" + std::to_string(i) + "]" +
          (cfg.routes[i].endpoints.empty() ? std::string{}
                                           : ".endpoints[" + std::to_string(j) + "]") +
          ".auth";
      const std::string name = credentials_key(route.name, endpoints[j].name);
      if (route.auth.oauth2) {
        out.emplace(name, fetch_first_token(route, key + ".oauth2.token_url"));
      } else if (!route.auth.bearer_token_file.empty()) {
        try {
          out.emplace(name, auth::credential{auth::bearer_authorization(auth::read_bearer_token(
                                                 route.auth.bearer_token_file)),
                                             std::chrono::seconds{0}});
        } catch (const auth::token_file_error& e) {
          throw config_error{key + ".bearer_token_file", e.what()};
        }
      }
    }
  }
  return out;
}

}  // namespace courier::topology
