#include "core/config/config.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

#include "core/config/config_key.hpp"
#include "core/http/endpoint.hpp"
#include "core/retry/retry_tiers.hpp"

namespace courier {
namespace {

using config_detail::in_quotes;

std::optional<std::string> non_empty_env(const getenv_function& getenv, const char* name) {
  auto v = getenv(name);
  if (v && v->empty()) {
    return std::nullopt;
  }
  return v;
}

}  // namespace

std::string_view to_string(signing_scheme s) {
  switch (s) {
    case signing_scheme::x_signature:
      return "x-signature";
    case signing_scheme::standard_webhooks:
      return "standard-webhooks";
  }
  return "unknown";
}

std::string_view to_string(routing::unknown_endpoint_action a) {
  switch (a) {
    case routing::unknown_endpoint_action::dead_letter:
      return "dead_letter";
    case routing::unknown_endpoint_action::skip:
      return "skip";
  }
  return "dead_letter";
}

std::string_view to_string(idempotency_key_form f) {
  switch (f) {
    case idempotency_key_form::plain:
      return "plain";
    case idempotency_key_form::sf_string:
      return "sf-string";
  }
  return "unknown";
}

bool signs_with(const route_config& r, signing_scheme s) {
  return std::find(r.signing.schemes.begin(), r.signing.schemes.end(), s) !=
         r.signing.schemes.end();
}

route_topics topics_of(const route_config& r) {
  auto topics = route_topics_named(r.topic, r.retry_tiers, r.dlq_topic);
  topics.receipts = r.receipts_topic;
  return topics;
}

config_error::config_error(std::string key, std::string problem)
    : std::runtime_error(key + ": " + problem),
      key_(std::move(key)),
      problem_(std::move(problem)) {}

const std::string& config_error::key() const { return key_; }

const std::string& config_error::problem() const { return problem_; }

config_overrides overrides_from_env(const getenv_function& getenv) {
  config_overrides o;
  o.brokers = non_empty_env(getenv, "KAFKA_BROKERS");
  o.webhook_url = non_empty_env(getenv, "WEBHOOK_URL");
  if (o.webhook_url && !has_http_scheme(*o.webhook_url)) {
    throw config_error{"WEBHOOK_URL", "must start with http:// or https:// and name a host, got " +
                                          in_quotes(http::display_url(*o.webhook_url))};
  }
  o.hmac_secret = non_empty_env(getenv, "HMAC_SECRET");
  if (const auto file = non_empty_env(getenv, "HMAC_SECRET_FILE")) {
    // Two sources for one secret is a deployment mistake; picking one
    // silently would hide which secret is in use.
    if (o.hmac_secret) {
      throw config_error{"HMAC_SECRET_FILE",
                         "set either HMAC_SECRET or HMAC_SECRET_FILE, not "
                         "both"};
    }
    o.hmac_secret = read_secret_file(*file, "HMAC_SECRET_FILE");
  }
  if (const auto list = non_empty_env(getenv, "STANDARD_WEBHOOKS_SECRETS")) {
    std::vector<std::string> secrets;
    std::istringstream words{*list};
    for (std::string w; words >> w;) {
      secrets.push_back(std::move(w));
    }
    o.standard_webhooks_secrets = std::move(secrets);
  }
  if (const auto file = non_empty_env(getenv, "STANDARD_WEBHOOKS_SECRETS_FILE")) {
    if (o.standard_webhooks_secrets) {
      throw config_error{"STANDARD_WEBHOOKS_SECRETS_FILE",
                         "set either STANDARD_WEBHOOKS_SECRETS or STANDARD_WEBHOOKS_SECRETS_FILE, "
                         "not both"};
    }
    o.standard_webhooks_secrets = read_secret_lines(*file, "STANDARD_WEBHOOKS_SECRETS_FILE");
  }
  return o;
}

void apply_overrides(courier_config& cfg, const config_overrides& o) {
  if (o.brokers) {
    cfg.kafka.brokers = *o.brokers;
  }
  if (o.admin_token) {
    cfg.admin.token = *o.admin_token;
  }
  for (route_config& r : cfg.routes) {
    if (o.webhook_url) {
      r.url = *o.webhook_url;
    }
    if (o.hmac_secret) {
      r.hmac_secret = *o.hmac_secret;
    }
    if (o.standard_webhooks_secrets && signs_with(r, signing_scheme::standard_webhooks)) {
      r.signing.secrets = *o.standard_webhooks_secrets;
    }
    if (o.cb_trip_after) {
      r.breaker.trip_after = *o.cb_trip_after;
    }
    if (o.pause_after) {
      r.pause_after = *o.pause_after;
    }
    if (o.cb_open_timeout) {
      r.breaker.open_timeout = *o.cb_open_timeout;
    }
  }
}

}  // namespace courier
