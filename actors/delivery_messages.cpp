#include "actors/delivery_messages.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/http/endpoint.hpp"
#include "core/retry/header_value.hpp"  // max_header_value

namespace courier::actors {
namespace {

// The courier process a receipt names: host:pid.
std::string this_instance() {
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) {
    host[0] = '\0';
  }
  return std::string{host.data()} + ":" + std::to_string(getpid());
}

// A Slack-style url's path is its secret: a partner echoing the request line (a 404 naming the
// path) must not put it into the DLQ. "/" alone is no secret.
std::vector<std::string> url_secrets(const std::string& url) {
  std::string target;
  try {
    target = http::parse_endpoint(url).target;
  } catch (const std::invalid_argument&) {
    return {};  // validated at start-up: a url that does not parse posts nothing to echo
  }
  if (target == "/") {
    return {};
  }
  return {target};
}

}  // namespace

signing_settings signing_of(route_config& route) {
  signing_settings s;
  s.x_signature = signs_with(route, signing_scheme::x_signature);
  s.hmac_secret = std::move(route.hmac_secret);
  if (signs_with(route, signing_scheme::standard_webhooks)) {
    s.standard_webhooks_secrets = std::move(route.signing.secrets);
  }
  switch (route.idempotency_key) {
    case idempotency_key_format::plain:
      s.key_form = idempotency_key_form::plain;
      break;
    case idempotency_key_format::sf_string:
      s.key_form = idempotency_key_form::sf_string;
      break;
  }
  return s;
}

attempt_policy_settings settings_of(route_config route) {
  attempt_policy_settings s;
  s.topics = topics_of(route);
  s.route = std::move(route.name);
  s.content_type = std::move(route.content_type);
  s.signing = signing_of(route);
  s.backoff = route.retry;
  s.judge = std::move(static_cast<answer_judge_settings&>(route.breaker));
  if (route.adaptive_concurrency) {
    adaptive_limit_settings a;
    a.max_limit = static_cast<int>(route.max_in_flight);
    a.initial_limit = std::min(a.max_limit, 16);
    s.adaptive = a;
  }
  for (auto& h : route.headers) {
    s.headers.fixed.emplace_back(std::move(h.name), std::move(h.value));
  }
  s.headers.forwarded = std::move(route.forward_record_headers);
  s.authenticated = route.auth.any();
  s.rate_limit = route.rate_limit;
  s.retry_budget = route.retry_budget;
  if (!route.receipts_topic.empty()) {
    s.instance = this_instance();
  }
  s.secrets = url_secrets(route.url);
  return s;
}

attempt_answer answer_of(delivery_id id, const http::response& r,
                         std::chrono::nanoseconds duration) {
  attempt_answer out;
  out.id = id;
  out.status = r.status;
  out.transport = r.error;
  out.error_message = r.error_message;
  out.retry_after = r.retry_after;
  out.response_headers = r.kept_headers;
  // Only a failure's body travels on (into the retry headers): a 2xx's is not copied.
  if (r.status < 200 || r.status >= 300) {
    out.body = r.body.substr(0, max_header_value);
  }
  out.duration = duration;
  return out;
}

void publish(delivery_pool_state& st) {
  const auto& now = st.policy->counts();
  auto& was = st.published;
  auto& m = *st.metrics;
  for (std::size_t c = 0; c < now.size(); ++c) {
    m.deliveries.at_index(c) += now.at_index(c) - was.at_index(c);
  }
  m.endpoint_blocked = st.policy->endpoint_blocked();
  m.endpoint_gone = st.policy->endpoint_gone();
  was = now;
  m.in_flight = static_cast<std::int64_t>(st.policy->in_flight());
  m.concurrency_limit = st.policy->concurrency_limit();
  m.rate_limit_waiting = static_cast<std::int64_t>(st.policy->waiting_for_rate());
  m.attempts_in_flight = static_cast<std::int64_t>(st.policy->attempts_out());
  m.credentials_waiting = static_cast<std::int64_t>(st.policy->waiting_for_credentials());
  m.rate_limit = st.policy->rate_limit();
}

}  // namespace courier::actors
