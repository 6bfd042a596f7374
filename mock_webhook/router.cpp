#include "mock_webhook/router.hpp"

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/verb.hpp>
#include <nlohmann/json.hpp>

namespace courier::mock {

namespace beast_http = boost::beast::http;
using beast_http::status;

namespace {

reply answer(const wire_request& req, status code, const nlohmann::json& body) {
  reply r;
  r.message.result(code);
  r.message.version(req.version());
  r.message.keep_alive(req.keep_alive());
  r.message.set(beast_http::field::server, "courier-mock-webhook");
  r.message.set(beast_http::field::content_type, "application/json");
  r.message.body() = body.dump();
  r.message.prepare_payload();
  return r;
}

reply error(const wire_request& req, status code, const std::string& why) {
  return answer(req, code, nlohmann::json{{"error", why}});
}

std::optional<std::string_view> header(const wire_request& req, std::string_view name) {
  const auto it = req.find(boost::beast::string_view(name.data(), name.size()));
  if (it == req.end()) {
    return std::nullopt;
  }
  const auto value = it->value();
  return std::string_view(value.data(), value.size());
}

reply method_not_allowed(const wire_request& req, const char* allow) {
  reply r = error(req, status::method_not_allowed, "use " + std::string(allow));
  r.message.set(beast_http::field::allow, allow);
  return r;
}

}  // namespace

router::router(std::shared_ptr<partner_state> state) : state_(std::move(state)) {}

reply router::handle(const wire_request& req) {
  const auto target = req.target();
  // The query string plays no part in routing.
  const std::string path(target.substr(0, target.find('?')));
  const auto method = req.method();
  if (path == "/deliver") {
    return method == beast_http::verb::post ? deliver(req) : method_not_allowed(req, "POST");
  }
  if (path == "/health") {
    return method == beast_http::verb::get ? answer(req, status::ok, {{"status", "ok"}})
                                           : method_not_allowed(req, "GET");
  }
  if (path == "/stats") {
    return method == beast_http::verb::get ? answer(req, status::ok, to_json(state_->snapshot()))
                                           : method_not_allowed(req, "GET");
  }
  if (path == "/chaos") {
    if (method == beast_http::verb::get) {
      return answer(req, status::ok, to_json(state_->current_chaos()));
    }
    return method == beast_http::verb::post ? set_chaos(req) : method_not_allowed(req, "GET, POST");
  }
  if (path == "/secret") {
    return method == beast_http::verb::post ? set_secret(req) : method_not_allowed(req, "POST");
  }
  if (path == "/chaos/clear") {
    if (method != beast_http::verb::post) {
      return method_not_allowed(req, "POST");
    }
    state_->set_chaos(chaos{});
    state_->set_outage_until({});
    return answer(req, status::ok, to_json(state_->current_chaos()));
  }
  return error(req, status::not_found, "no route for " + path);
}

reply router::deliver(const wire_request& req) {
  const auto decision =
      state_->decide(header(req, "Idempotency-Key"), req.body(), header(req, "X-Signature"),
                     webhook_headers{header(req, "webhook-id"), header(req, "webhook-timestamp"),
                                     header(req, "webhook-signature")},
                     std::chrono::steady_clock::now(), std::chrono::system_clock::now());
  switch (decision.outcome) {
    case delivery_outcome::accepted:
    case delivery_outcome::duplicate: {
      // A duplicate gets exactly the first answer: that is what idempotency promises.
      reply r = answer(req, status::ok, {{"status", "ok"}});
      r.delay = decision.latency;
      return r;
    }
    case delivery_outcome::missing_key:
      return error(req, status::bad_request, decision.reason);
    case delivery_outcome::unauthorized:
      return error(req, status::unauthorized, decision.reason);
    case delivery_outcome::unavailable:
      return error(req, status::service_unavailable, decision.reason);
    case delivery_outcome::rejected:
      return error(req, status::bad_request, decision.reason);
    case delivery_outcome::gone:
      return error(req, status::gone, decision.reason);
    case delivery_outcome::hang: {
      reply r;
      r.hang = true;
      return r;
    }
  }
  return error(req, status::internal_server_error, "unknown outcome");
}

reply router::set_chaos(const wire_request& req) {
  const auto doc = nlohmann::json::parse(req.body(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return error(req, status::bad_request, "body is not valid JSON");
  }
  try {
    state_->set_chaos(chaos_from_json(doc));
  } catch (const std::invalid_argument& e) {
    return error(req, status::bad_request, e.what());
  }
  return answer(req, status::ok, to_json(state_->current_chaos()));
}

// {"hmac_secret": "..."} rotates the partner's X-Signature secret, {"hmac_secret": null} stops
// checking it; {"standard_webhooks_secrets": ["whsec_...", ...]} replaces its Standard Webhooks
// secrets ([] or null: no longer checked). One request may carry both. Secrets are never echoed.
reply router::set_secret(const wire_request& req) {
  static constexpr const char* expected = R"(expected {"hmac_secret": "<secret>" | null} and/or )"
                                          R"({"standard_webhooks_secrets": ["whsec_..."] | null})";
  const auto doc = nlohmann::json::parse(req.body(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() ||
      (!doc.contains("hmac_secret") && !doc.contains("standard_webhooks_secrets"))) {
    return error(req, status::bad_request, expected);
  }
  std::optional<std::optional<std::string>> hmac;
  if (const auto it = doc.find("hmac_secret"); it != doc.end()) {
    if (!it->is_string() && !it->is_null()) {
      return error(req, status::bad_request, expected);
    }
    hmac = it->is_null() ? std::nullopt : std::optional<std::string>{it->get<std::string>()};
  }
  std::optional<std::vector<std::string>> standard_webhooks;
  if (const auto it = doc.find("standard_webhooks_secrets"); it != doc.end()) {
    std::vector<std::string> secrets;
    if (!it->is_null()) {
      if (!it->is_array()) {
        return error(req, status::bad_request, expected);
      }
      for (const auto& s : *it) {
        if (!s.is_string()) {
          return error(req, status::bad_request, expected);
        }
        secrets.push_back(s.get<std::string>());
      }
    }
    standard_webhooks = std::move(secrets);
  }
  if (standard_webhooks) {
    try {
      state_->set_standard_webhooks_secrets(*standard_webhooks);
    } catch (const std::invalid_argument& e) {
      return error(req, status::bad_request, e.what());  // names the position, not the secret
    }
  }
  if (hmac) {
    state_->set_secret(std::move(*hmac));
  }
  return answer(req, status::ok, {{"status", "ok"}});
}

}  // namespace courier::mock
