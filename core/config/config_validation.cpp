#include "core/config/config.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/config_key.hpp"
#include "core/config/partner_contract.hpp"
#include "core/crypto/whsec.hpp"
#include "core/http/endpoint.hpp"
#include "core/time/duration.hpp"

namespace courier {
namespace {

using config_detail::in_quotes;
using config_detail::join_key;
using nlohmann::json;

// More io threads than this is a typo, not a machine: each one holds a share of every route's
// connections.
constexpr std::size_t max_http_io_threads = 64;

void require_positive(const std::string& key, std::int64_t value) {
  if (value <= 0) {
    throw config_error{key, "must be a positive integer, got " + std::to_string(value)};
  }
}

void require_positive(const std::string& key, std::chrono::milliseconds d) {
  if (d.count() <= 0) {
    throw config_error{key, "must be a positive duration, got " + format_duration(d)};
  }
}

void validate_signing(const route_config& r, const std::string& path, secret_check need) {
  if (r.signing.schemes.empty()) {
    throw config_error{join_key(path, "signing.scheme"), "must name at least one scheme"};
  }
  if (signs_with(r, signing_scheme::x_signature) && r.hmac_secret.empty() &&
      need == secret_check::required) {
    // Never print the secret, only where it should come from.
    throw config_error{join_key(path, "hmac_secret"),
                       "must not be empty; set HMAC_SECRET or "
                       "HMAC_SECRET_FILE (or hmac_secret_file)"};
  }
  const std::string secrets_key = join_key(path, "signing.secrets");
  if (!signs_with(r, signing_scheme::standard_webhooks)) {
    if (!r.signing.secrets.empty()) {
      throw config_error{secrets_key,
                         "is only for the standard-webhooks scheme, which signing.scheme does "
                         "not name"};
    }
    return;
  }
  if (r.signing.secrets.empty() && need == secret_check::required) {
    throw config_error{secrets_key,
                       "must name at least one \"whsec_...\" secret for the standard-webhooks "
                       "scheme; set it, signing.secrets_file, STANDARD_WEBHOOKS_SECRETS or "
                       "STANDARD_WEBHOOKS_SECRETS_FILE"};
  }
  for (std::size_t i = 0; i < r.signing.secrets.size(); ++i) {
    const auto parsed = parse_whsec(r.signing.secrets[i]);
    if (!parsed.problem.empty()) {
      // The problem never quotes the secret.
      throw config_error{secrets_key + "[" + std::to_string(i) + "]", parsed.problem};
    }
  }
}

void validate_auto_redrive(const auto_redrive_config& a, const std::string& path) {
  require_positive(join_key(path, "after"), a.after);
  if (a.lookback.count() < 0) {
    throw config_error{join_key(path, "lookback"), "must not be negative"};
  }
  if (a.classes.empty()) {
    throw config_error{join_key(path, "classes"),
                       "must name at least one error class (leave it out for the transient ones)"};
  }
  for (std::size_t i = 0; i < a.classes.size(); ++i) {
    if (a.classes[i].empty()) {
      throw config_error{join_key(path, "classes") + "[" + std::to_string(i) + "]",
                         "must not be empty"};
    }
  }
  if (!(a.rate > 0) || a.rate > 100000) {
    throw config_error{join_key(path, "rate"),
                       "must be a number of records per second in (0, 100000]"};
  }
  require_positive(join_key(path, "max"), static_cast<std::int64_t>(a.max));
}

// routes[].receipts_topic is a topic of its own, and receipts.response_headers names headers.
void validate_receipts(const route_config& r, const std::string& path) {
  const std::string headers = join_key(join_key(path, "receipts"), "response_headers");
  if (r.receipts_topic.empty()) {
    if (!r.receipt_response_headers.empty()) {
      throw config_error{headers, "needs routes[].receipts_topic (receipts are off without it)"};
    }
    return;
  }
  const auto topics = topics_of(r);
  std::vector<std::string> others = topics.consumed();
  others.push_back(topics.dlq);
  for (const auto& t : others) {
    if (t == r.receipts_topic) {
      throw config_error{join_key(path, "receipts_topic"),
                         "must be a topic of its own, not the route's " + in_quotes(t)};
    }
  }
  for (std::size_t i = 0; i < r.receipt_response_headers.size(); ++i) {
    if (!config_detail::is_token(r.receipt_response_headers[i])) {
      throw config_error{headers + "[" + std::to_string(i) + "]",
                         "is not a valid HTTP header name"};
    }
  }
}

void validate_route(const route_config& r, const std::string& path, secret_check need) {
  if (r.name.empty()) {
    throw config_error{join_key(path, "name"), "must not be empty"};
  }
  if (r.topic.empty()) {
    throw config_error{join_key(path, "topic"), "must not be empty"};
  }
  if (!has_http_scheme(r.url)) {
    throw config_error{join_key(path, "url"),
                       "must start with http:// or https:// and name a "
                       "host (or set WEBHOOK_URL / --webhook-url), got " +
                           in_quotes(http::display_url(r.url))};
  }
  validate_signing(r, path, need);
  if (r.content_type.empty()) {
    throw config_error{join_key(path, "content_type"), "must not be empty"};
  }
  require_positive(join_key(path, "max_in_flight"), static_cast<std::int64_t>(r.max_in_flight));
  require_positive(join_key(path, "pause_after"), r.pause_after);
  const std::string tiers = join_key(path, "retry_tiers");
  for (std::size_t i = 0; i < r.retry_tiers.size(); ++i) {
    const std::string key = tiers + "[" + std::to_string(i) + "]";
    require_positive(key, r.retry_tiers[i]);
    for (std::size_t j = 0; j < i; ++j) {
      if (r.retry_tiers[j] == r.retry_tiers[i]) {
        // Two tiers with one delay would share one topic.
        throw config_error{key, "repeats " + format_duration(r.retry_tiers[i]) +
                                    "; every tier needs its own delay"};
      }
    }
  }
  config_detail::validate_partner_contract(r, path);
  if (r.dlq_topic == r.topic && !r.dlq_topic.empty()) {
    throw config_error{join_key(path, "dlq_topic"), "must differ from the source topic"};
  }
  validate_receipts(r, path);
  if (r.auto_redrive) {
    validate_auto_redrive(*r.auto_redrive, join_key(path, "auto_redrive"));
  }

  const std::string tls = join_key(path, "tls");
  if (r.tls.client_cert_file.empty() != r.tls.client_key_file.empty()) {
    const bool cert = !r.tls.client_cert_file.empty();
    throw config_error{
        join_key(tls, cert ? "client_key_file" : "client_cert_file"),
        cert ? "must be set with client_cert_file" : "must be set with client_key_file"};
  }

  const std::string b = join_key(path, "breaker");
  require_positive(join_key(b, "trip_after"), r.breaker.trip_after);
  require_positive(join_key(b, "open_timeout"), r.breaker.open_timeout);
  require_positive(join_key(b, "half_open_max_requests"), r.breaker.half_open_max_requests);
  if (r.breaker.trip_on_permanent_run < 0) {
    throw config_error{join_key(b, "trip_on_permanent_run"),
                       "must be 0 (off) or a positive integer, got " +
                           std::to_string(r.breaker.trip_on_permanent_run)};
  }
  for (std::size_t i = 0; i < r.breaker.endpoint_failure_statuses.size(); ++i) {
    const int status = r.breaker.endpoint_failure_statuses[i];
    if (status >= 200 && status < 300) {
      // A 2xx is a delivery; holding it would deliver the record forever.
      throw config_error{join_key(b, "endpoint_failure_statuses") + "[" + std::to_string(i) + "]",
                         "must not be a 2xx status, got " + std::to_string(status)};
    }
  }

  const std::string rt = join_key(path, "retry");
  require_positive(join_key(rt, "initial"), r.retry.initial);
  if (!(r.retry.multiplier >= 1.0)) {
    throw config_error{join_key(rt, "multiplier"),
                       "must be at least 1, got " + json(r.retry.multiplier).dump()};
  }
  require_positive(join_key(rt, "max"), r.retry.max);
  if (r.retry.max < r.retry.initial) {
    throw config_error{join_key(rt, "max"), "must be at least retry.initial (" +
                                                format_duration(r.retry.initial) + "), got " +
                                                format_duration(r.retry.max)};
  }
  require_positive(join_key(rt, "max_attempts"), r.retry.max_attempts);
  require_positive(join_key(rt, "max_retry_after"), r.retry.max_retry_after);

  const std::string h = join_key(path, "http");
  require_positive(join_key(h, "max_connections"),
                   static_cast<std::int64_t>(r.http.max_connections));
  require_positive(join_key(h, "timeout"), r.http.timeout);
  require_positive(join_key(h, "connect_timeout"), r.http.connect_timeout);
  require_positive(join_key(h, "max_connection_age"), r.http.max_connection_age);
  require_positive(join_key(h, "max_response_bytes"),
                   static_cast<std::int64_t>(r.http.max_response_bytes));
  if (r.http.max_header_bytes > std::size_t{1024} * 1024) {
    throw config_error{
        join_key(h, "max_header_bytes"),
        "must be at most 1048576 (1 MiB), got " + std::to_string(r.http.max_header_bytes)};
  }
  // An answer waiting holds its record's slot: a long wait caps the route (Little's law).
  if (r.http.gather_answers > std::chrono::milliseconds{100}) {
    throw config_error{join_key(h, "gather_answers"),
                       "must be at most 100ms, got " + format_duration(r.http.gather_answers)};
  }
}

bool is_ipv4(std::string_view s) {
  int parts = 0;
  while (true) {
    std::size_t digits = 0;
    int value = 0;
    while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') {
      value = value * 10 + (s[digits] - '0');
      ++digits;
      if (digits > 3) {
        return false;
      }
    }
    if (digits == 0 || value > 255) {
      return false;
    }
    ++parts;
    s.remove_prefix(digits);
    if (s.empty()) {
      return parts == 4;
    }
    if (s.front() != '.' || parts == 4) {
      return false;
    }
    s.remove_prefix(1);
  }
}

bool is_ipv6(std::string_view s) {
  if (s.size() < 2 || s.find(':') == std::string_view::npos) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' ||
           c == '.';
  });
}

}  // namespace

std::optional<listen_address> parse_listen_address(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view host = text.substr(0, colon);
  const std::string_view port = text.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  const long number = std::stol(std::string{port});
  if (number > 65535) {
    return std::nullopt;
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    if (!is_ipv6(host)) {
      return std::nullopt;
    }
  } else if (host != "localhost" && !is_ipv4(host)) {
    return std::nullopt;
  }
  return listen_address{std::string{host}, static_cast<std::uint16_t>(number)};
}

// A route ordered by key needs its group to assign with "range" (each source partition's tier
// partitions with its owner), which cooperative-sticky or round-robin would not.
void validate_ordering(const courier_config& cfg) {
  for (std::size_t i = 0; i < cfg.routes.size(); ++i) {
    const route_config& r = cfg.routes[i];
    const std::string path = "routes[" + std::to_string(i) + "].ordering";
    switch (r.ordering.mode) {
      case ordering_mode::none:
        continue;
      case ordering_mode::key:
        break;
    }
    const auto strategy = cfg.kafka.properties.find("partition.assignment.strategy");
    if (strategy != cfg.kafka.properties.end() && strategy->second != "range") {
      throw config_error{"kafka.properties.partition.assignment.strategy",
                         "must be \"range\" (or unset) while " + path +
                             " is \"key\": range gives each source partition's retry-tier "
                             "partitions to the same instance; got " +
                             in_quotes(strategy->second)};
    }
  }
}

void validate(const courier_config& cfg, secret_check need) {
  if (cfg.kafka.brokers.empty()) {
    throw config_error{"kafka.brokers", "must not be empty"};
  }
  if (cfg.kafka.group_id.empty()) {
    throw config_error{"kafka.group_id", "must not be empty"};
  }
  if (cfg.routes.empty()) {
    throw config_error{"routes", "at least one route is required"};
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < cfg.routes.size(); ++i) {
    const route_config& r = cfg.routes[i];
    const std::string path = "routes[" + std::to_string(i) + "]";
    validate_route(r, path, need);
    if (!names.insert(r.name).second) {
      throw config_error{join_key(path, "name"), "duplicate route name " + in_quotes(r.name)};
    }
  }
  validate_ordering(cfg);
  if (cfg.http_io_threads > max_http_io_threads) {
    throw config_error{"http_io_threads", "must be at most " + std::to_string(max_http_io_threads) +
                                              ", got " + std::to_string(cfg.http_io_threads)};
  }
  if (cfg.admin.listen != "off" && !parse_listen_address(cfg.admin.listen)) {
    throw config_error{"admin.listen",
                       "expected \"off\" or HOST:PORT (an IPv4 address, [IPv6] or localhost, "
                       "port 0..65535), got " +
                           in_quotes(cfg.admin.listen)};
  }
}

bool has_http_scheme(std::string_view url) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (url.substr(0, scheme.size()) == scheme) {
      const std::string_view rest = url.substr(scheme.size());
      return !rest.empty() && rest.front() != '/' && rest.front() != ':';
    }
  }
  return false;
}

}  // namespace courier
