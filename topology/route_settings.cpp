#include "topology/route_settings.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/http/endpoint.hpp"
#include "core/kafka/admin.hpp"
#include "core/model/decimal.hpp"
#include "core/routing/endpoint_fanout.hpp"
#include "topology/tier_scan.hpp"
#include "topology/topics.hpp"

namespace courier::topology {
namespace {

// How often a route commits the offsets that moved: auto.commit.interval.ms, librdkafka's
// setting for it (5 s by default), though courier commits itself (it carries an offset map).
std::chrono::milliseconds commit_interval(const kafka_config& k) {
  constexpr std::int64_t librdkafka_default_ms = 5000;
  constexpr std::int64_t shortest_ms = 10;
  std::int64_t ms = librdkafka_default_ms;
  if (const auto it = k.properties.find("auto.commit.interval.ms"); it != k.properties.end()) {
    // librdkafka refuses a value that is not an integer when the consumer is made.
    ms = parse_decimal<std::int64_t>(it->second).value_or(librdkafka_default_ms);
  }
  return std::chrono::milliseconds{std::max(ms, shortest_ms)};
}

// ordering "key" on a route with several endpoints: each record's key is ordered within the one
// endpoint it goes to (what the fan-out sends it to: config allows key order only with
// endpoint_from, one endpoint per record); a record for none goes unordered.
ordered_intake::key_scope order_scope_of(const route_config& route) {
  if (route.ordering.mode == ordering_mode::none || route.endpoints.size() < 2) {
    return {};
  }
  auto routing =
      std::make_shared<const routing::endpoint_routing>(routing_of(route, endpoints_of(route)));
  return [routing, source = route.topic](const record& r) -> std::optional<std::string> {
    const auto d = routing::endpoints_for(*routing, r, source);
    if (d.endpoints.size() != 1) {
      return std::nullopt;
    }
    return routing->rules()[d.endpoints.front()].name;
  };
}

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

kafka::consumer_settings consumer_settings_of(const kafka_config& kafka) {
  kafka::consumer_settings s;
  s.bootstrap = kafka.brokers;
  s.group_id = kafka.group_id;
  s.extra = kafka.properties;
  return s;
}

kafka::consumer_settings route_consumer_settings(const courier_config& cfg,
                                                 const route_config& route) {
  auto s = consumer_settings_of(cfg.kafka);
  const auto topics = topics_of(route);
  s.topics = topics.consumed();
  const bool ordered_group =
      std::any_of(cfg.routes.begin(), cfg.routes.end(),
                  [](const route_config& r) { return r.ordering.mode == ordering_mode::key; });
  if (ordered_group) {
    s.extra["partition.assignment.strategy"] = std::string{ordered_group_assignor};
  }
  if (route.ordering.mode == ordering_mode::none) {
    // The tiers in a member of their own, so the assignor balances the source on its own.
    for (const auto& tier : topics.tiers) {
      s.separate_member_topics.push_back(tier.topic);
    }
  }
  // Every route's consumer joins the one group: a static member id must differ between them, or
  // the broker fences all but one (FENCED_INSTANCE_ID).
  if (const auto it = s.extra.find("group.instance.id"); it != s.extra.end()) {
    it->second += "-" + route.name;
  }
  return s;
}

actors::consumer_actor_settings consumer_actor_settings_of(
    const courier_config& cfg, const route_config& route, std::chrono::milliseconds drain_timeout) {
  const auto topics = topics_of(route);
  actors::consumer_actor_settings cs;
  cs.kafka = route_consumer_settings(cfg, route);
  for (const auto& tier : topics.tiers) {
    cs.core.gated_topics.insert(tier.topic);
  }
  cs.core.longest_retry_delay = topics.longest_delay();
  cs.route = route.name;
  cs.core.max_in_flight = route.max_in_flight;
  cs.core.max_in_flight_per_partition = route.max_in_flight_per_partition;
  cs.core.head_of_line_records = route.head_of_line_records;
  cs.core.head_of_line_age = route.head_of_line_age;
  cs.core.ordering = route.ordering;
  cs.core.order_scope = order_scope_of(route);
  cs.core.source_topic = topics.source;
  switch (route.ordering.mode) {
    case ordering_mode::none:
      break;
    case ordering_mode::key:
      cs.scan_tiers = range_reader_tier_scan(cluster_of(cfg));
      break;
  }
  cs.drain_timeout = drain_timeout;
  cs.revoke_drain_timeout = cfg.kafka.revoke_drain_timeout;
  cs.commit_interval = commit_interval(cfg.kafka);
  // A burst of a route's bound finished is committed at once, not at the next interval: a
  // crash then delivers again at most about that many records that were done.
  cs.core.commit_after_records = route.max_in_flight;
  if (route.rate_limit) {
    // The quota is shared by the partitions: each instance takes its assignment's share.
    cs.source_topic = route.topic;
    cs.source_partitions =
        kafka::partition_count(cluster_of(cfg), route.topic, std::chrono::seconds{10});
  }
  return cs;
}

http::client_settings client_settings_of(const route_config& r) {
  http::client_settings s;
  s.max_connections = r.http.max_connections;
  s.timeout = r.http.timeout;
  s.connect_timeout = r.http.connect_timeout;
  s.max_response_bytes = r.http.max_response_bytes;
  s.max_header_bytes = static_cast<std::uint32_t>(r.http.max_header_bytes);
  s.allow_private_targets = r.allow_private_targets;
  s.tls = r.tls;
  s.max_connection_age = r.http.max_connection_age;
  if (!r.receipts_topic.empty()) {
    s.kept_response_headers = r.receipt_response_headers;
  }
  return s;
}

http::client_settings token_client_settings(const route_config& route) {
  auto s = client_settings_of(route);
  s.max_connections = 2;
  return s;
}

signing_settings signing_of(const route_config& route) {
  signing_settings s;
  s.x_signature = signs_with(route, signing_scheme::x_signature);
  s.hmac_secret = route.hmac_secret;
  if (signs_with(route, signing_scheme::standard_webhooks)) {
    s.standard_webhooks_secrets = route.signing.secrets;
  }
  s.key_form = route.idempotency_key;
  return s;
}

attempt_policy_settings attempt_policy_settings_of(const route_config& route) {
  attempt_policy_settings s;
  s.topics = topics_of(route);
  s.route = route.name;
  s.content_type = route.content_type;
  s.signing = signing_of(route);
  s.backoff = route.retry;
  s.judge = static_cast<const answer_judge_settings&>(route.breaker);
  if (route.adaptive_concurrency) {
    adaptive_limit_settings a;
    a.max_limit = static_cast<int>(route.max_in_flight);
    a.initial_limit = std::min(a.max_limit, 16);
    s.adaptive = a;
  }
  for (const auto& h : route.headers) {
    s.headers.fixed.emplace_back(h.name, h.value);
  }
  s.headers.forwarded = route.forward_record_headers;
  s.authenticated = route.auth.any();
  s.rate_limit = route.rate_limit;
  s.retry_budget = route.retry_budget;
  if (!route.receipts_topic.empty()) {
    s.instance = this_instance();
  }
  s.secrets = url_secrets(route.url);
  return s;
}

actors::delivery_pool_settings delivery_pool_settings_of(const route_config& route) {
  actors::delivery_pool_settings s;
  s.policy = attempt_policy_settings_of(route);
  s.ordered = route.ordering.mode == ordering_mode::key;
  s.gather_answers = route.http.gather_answers;
  return s;
}

actors::delivery_pool_settings endpoint_pool_settings_of(const route_endpoint& endpoint) {
  auto s = delivery_pool_settings_of(endpoint.settings);
  s.policy.park_while_open = true;
  s.policy.max_pending = endpoint.settings.max_in_flight;
  return s;
}

}  // namespace courier::topology
