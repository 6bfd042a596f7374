#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/config/secret_file.hpp"  // read_secret_file, read_secret_lines
#include "core/auth/auth_settings.hpp"
#include "core/delivery/answer_judge.hpp"
#include "core/redrive/auto_redrive_trigger.hpp"
#include "core/delivery/backoff.hpp"
#include "core/delivery/breaker.hpp"
#include "core/delivery/retry_budget.hpp"
#include "core/delivery/token_bucket.hpp"
#include "core/http/client_defaults.hpp"
#include "core/http/tls_settings.hpp"
#include "core/model/idempotency_key.hpp"
#include "core/model/key_ordering.hpp"
#include "core/model/route_topics.hpp"
#include "core/routing/endpoint_routing.hpp"
#include "core/routing/spec_error.hpp"

namespace courier {

// A route's "breaker" object: the breaker's own settings and the answer judge's (which answers
// count against the endpoint), each with its defaults declared once, in its own module.
struct breaker_config : breaker_settings, answer_judge_settings {};

// A route's "retry" object: the in-process backoff (core/delivery/backoff.hpp).
using retry_config = backoff_policy;

struct http_config {
  std::size_t max_connections = http::defaults::max_connections;
  std::chrono::milliseconds timeout = http::defaults::timeout;
  // Per resolved address, within `timeout`: a dead one gives way to the next (client_settings).
  std::chrono::milliseconds connect_timeout = http::defaults::connect_timeout;
  std::size_t max_response_bytes = http::defaults::max_response_bytes;
  // Status line and headers of a response; longer ones end the attempt (response_too_large).
  std::size_t max_header_bytes = http::defaults::max_header_bytes;
  // How long the first answer of a batch waits on the io thread for more before the delivery
  // pool is woken to take them (16 answers, or the answer of the last attempt still unanswered,
  // wake it at once); 0 wakes it for every first answer.
  // A light load then wakes the pool once for many answers, not for every few.
  std::chrono::milliseconds gather_answers{1};
  // A connection open this long is closed after its answer; the next resolves the host again.
  std::chrono::milliseconds max_connection_age = http::defaults::max_connection_age;
};

// TLS for an https:// url, as the HTTP client takes it. The peer is always verified; paths are
// read at start-up.
using tls_config = http::tls_settings;

// How a route signs its requests (docs/delivery-contract.md, "Signing").
enum class signing_scheme {
  x_signature,        // "x-signature": X-Signature, hex HMAC-SHA256 of the body (hmac_secret)
  standard_webhooks,  // "standard-webhooks": webhook-id, webhook-timestamp, webhook-signature
};

struct signing_config {
  std::vector<signing_scheme> schemes{signing_scheme::x_signature};
  // Standard Webhooks secrets, "whsec_<base64>"; one signature each, so several during a rotation.
  std::vector<std::string> secrets;
};

// The names the config file uses: "x-signature", "standard-webhooks"; "plain", "sf-string".
std::string_view to_string(signing_scheme s);
std::string_view to_string(idempotency_key_form f);

// A partner's published request quota (routes[].rate_limit): a token bucket of every request
// the route sends (first attempts, retries, breaker probes). Each instance takes the share of it
// that its assigned source partitions are of the topic's (docs/configuration.md, "Rate limit").
using rate_limit_config = rate_limit_settings;

// routes[].auto_redrive: the route redrives its DLQ's transiently failed records by itself once
// its breaker has been Closed for a while after an Open period
// (core/redrive/auto_redrive_trigger).
using auto_redrive_config = auto_redrive_settings;

// Retries as a share of first attempts (routes[].retry_budget): a retry over it moves its record
// on to the retry tier, never to the DLQ for this reason.
using retry_budget_config = retry_budget_settings;

// One static request header (routes[].headers): its value given inline, read from a file or
// from an environment variable at start-up. `source` says which ("inline", "file /run/x",
// "env PARTNER_KEY") for errors; the value is never logged.
struct static_header {
  std::string name;
  std::string value;
  std::string source;
};

// routes[].auth, as core/auth declares it.
using oauth2_config = auth::oauth2_settings;
using auth_config = auth::auth_settings;

// routes[].endpoints[].filter, routes[].endpoint_from: parsed when the file is read
// (core/routing); empty when the file sets none.
struct endpoint_filter {
  std::optional<routing::record_filter> value;
};
struct endpoint_selection {
  std::optional<routing::endpoint_selector> value;
};

struct route_config;

// routes[].endpoints[]: one partner of a route with several (docs/endpoints.md). An endpoint
// sets its name, its filter and any of its partner's settings (endpoint_partner in
// config_fields.hpp); what it leaves out it takes from its route, as endpoints_of() resolves
// it, after the environment's overrides.
struct endpoint_config {
  std::string name;
  endpoint_filter filter;
  // The endpoint's own settings as the file gives them, over its route's: read again over the
  // route by endpoints_of(). `settings` holds them over the defaults, as read for their checks.
  std::shared_ptr<const nlohmann::json> overlay;
  std::shared_ptr<route_config> settings = std::make_shared<route_config>();
};

struct route_config {
  std::string name;
  std::string topic;
  // The webhook's URL: given inline, or from {"file": PATH} / {"env": NAME} like a secret (a
  // Slack-style URL's path is its secret). Shown only as http::display_url shows it.
  std::string url;
  std::string url_source = "inline";  // "inline", "file PATH" or "env NAME" (as static_header)
  // The X-Signature secret (or hmac_secret_file in the file, HMAC_SECRET / HMAC_SECRET_FILE).
  std::string hmac_secret;
  signing_config signing;
  idempotency_key_form idempotency_key = idempotency_key_form::plain;
  std::string content_type = "application/json";
  std::size_t max_in_flight = 256;
  // 0: no bound of its own, so one busy partition may use the whole route's concurrency. A
  // bound pauses the partition when reached, and every pause drops librdkafka's prefetch.
  std::size_t max_in_flight_per_partition = 0;
  // Attempts in flight follow an adaptive limit (AIMD on latency and on 429/503/timeouts, up
  // to max_in_flight, starting at 16): courier finds the partner's capacity by itself.
  bool adaptive_concurrency = false;
  // The head-of-line bound: when a partition's lowest record in flight holds its commit point
  // back by more than this many offsets, it moves to the next retry tier at once (0: off).
  std::size_t head_of_line_records = 1000;
  // The same bound in time: a head that has held its partition's commit point this long moves
  // on (0: off).
  std::chrono::milliseconds head_of_line_age{0};
  std::chrono::milliseconds pause_after{10000};
  // Delay topics "<topic>.retry-<delay>" a record moves through before the DLQ.
  std::vector<std::chrono::milliseconds> retry_tiers{
      std::chrono::seconds{5}, std::chrono::seconds{30}, std::chrono::minutes{5}};
  // Empty: default_dlq_topic(topic), e.g. "brew.shipments.dlq" for "brew.shipments.v1".
  std::string dlq_topic;
  // routes[].receipts_topic: one record per delivered record, keyed by its idempotency key and
  // written before its offset may be committed: what proves, later, that it was delivered
  // (empty: no receipts).
  std::string receipts_topic;
  // routes[].receipts.response_headers: the partner's answer headers a receipt keeps (its
  // request id), by name, case-insensitive.
  std::vector<std::string> receipt_response_headers;
  // The SSRF guard: false refuses an endpoint whose addresses are all loopback, private,
  // link-local or otherwise reserved (the record is held and the breaker opens).
  bool allow_private_targets = false;
  // Credentials may cross the network in cleartext: without it, an http:// url with auth, a
  // static header from a file or variable, or a url from one, and an http:// token_url, are
  // configuration errors (validate()).
  bool allow_insecure_http = false;
  tls_config tls;
  std::optional<rate_limit_config> rate_limit;      // none: no quota of its own
  std::optional<retry_budget_config> retry_budget;  // none: retries are not budgeted
  std::optional<auto_redrive_config> auto_redrive;  // none: redrive is by hand only
  std::vector<static_header> headers;
  auth_config auth;
  // Record headers sent on every attempt under the same name (W3C trace context by default).
  std::vector<std::string> forward_record_headers{"traceparent", "tracestate"};
  breaker_config breaker;
  retry_config retry;
  http_config http;
  // routes[].ordering: "none" (the default), "key", or an object with mode, on_dead_letter,
  // max_parked_keys and max_followers.
  key_ordering ordering;
  // routes[].endpoints: the route's partners (empty: one, named after the route, at `url`).
  std::vector<endpoint_config> endpoints;
  // routes[].endpoint_from: the record names its one endpoint (none: each endpoint's filter
  // decides), and what happens to a record that names none of them.
  endpoint_selection endpoint_from;
  routing::unknown_endpoint_action on_unknown_endpoint =
      routing::unknown_endpoint_action::dead_letter;
};

// One endpoint of a route as it runs: its name and filter, and its route's settings with its
// own over them (`settings.name` is the route's; `settings.endpoints` is empty).
struct route_endpoint {
  std::string name;
  std::optional<routing::record_filter> filter;
  route_config settings;
};

// The endpoints of a route, resolved: a route without `endpoints` has one, named after the
// route, with the route's settings. Throws config_error for an endpoint setting that does not
// read (the file's values were checked when it was read; a file they name may have changed).
std::vector<route_endpoint> endpoints_of(const route_config& r);

// How the route picks a record's endpoints (core/routing), from its resolved endpoints.
routing::endpoint_routing routing_of(const route_config& r,
                                     const std::vector<route_endpoint>& endpoints);

std::string_view to_string(routing::unknown_endpoint_action a);

struct kafka_config {
  std::string brokers = "127.0.0.1:9092";
  std::string group_id = "courier";
  // Extra librdkafka properties, passed through untouched.
  std::map<std::string, std::string> properties;
  // How long a revoked partition's records in flight may take to finish before its last commit
  // (the rest are left to its next owner); below max.poll.interval.ms, the rebalance timeout.
  std::chrono::milliseconds revoke_drain_timeout{2000};
};

// The admin HTTP listener (/metrics, /healthz, /readyz, /state).
struct admin_config {
  // "HOST:PORT" (an IPv4 address, a bracketed IPv6 address or localhost; port 0 picks a free
  // one) or "off". Loopback by default: the read-only endpoints carry no authentication (POST
  // /routes/<name>/pause and /resume need `token`).
  std::string listen = "127.0.0.1:9464";
  // The bearer token POST /routes/<name>/pause and /resume require (admin.token or
  // admin.token_file, or --admin-token-file); empty: those routes are refused.
  std::string token;
};

struct courier_config {
  kafka_config kafka;
  std::vector<route_config> routes;
  admin_config admin;
  // Threads that run the HTTP clients of every route; each route's connections are split
  // between them (http::io_threads), 1..64.
  std::size_t http_io_threads = 1;
};

// A parsed admin.listen value.
struct listen_address {
  std::string host;  // without brackets: "127.0.0.1", "::1", "localhost"
  std::uint16_t port = 0;
};

// "HOST:PORT" as admin.listen takes it; nothing when the text is not one ("off" is not).
std::optional<listen_address> parse_listen_address(std::string_view text);

// A bad configuration value. what() is "<key>: <problem>", where key is the
// path of the offending value ("routes[0].breaker.trip_after"), an environment
// variable ("HMAC_SECRET_FILE") or a file path. Secrets never appear in it.
class config_error : public std::runtime_error {
 public:
  config_error(std::string key, std::string problem);
  const std::string& key() const;
  const std::string& problem() const;

 private:
  std::string key_;
  std::string problem_;
};

// Reads the JSON document into config types; checks keys and types only, so
// values still missing here can come from overrides before validate().
courier_config parse_config(const nlohmann::json& doc);

// Reads and parses a JSON config file. Unreadable files and JSON syntax
// errors are reported with the file path as the key.
courier_config load_config_file(const std::filesystem::path& path);

// What an operator changes without editing the file.
struct config_overrides {
  std::optional<std::string> brokers;
  std::optional<std::string> webhook_url;
  std::optional<std::string> hmac_secret;
  // Replaces signing.secrets of every route that signs with standard-webhooks.
  std::optional<std::vector<std::string>> standard_webhooks_secrets;
  std::optional<int> cb_trip_after;
  std::optional<std::chrono::milliseconds> pause_after;
  std::optional<std::chrono::milliseconds> cb_open_timeout;
  std::optional<std::string> admin_listen;  // --admin-listen
  std::optional<std::string> admin_token;   // --admin-token-file's content
};

using getenv_function = std::function<std::optional<std::string>(const char*)>;

// KAFKA_BROKERS, WEBHOOK_URL, HMAC_SECRET, HMAC_SECRET_FILE (read as read_secret_file reads
// every secret file), STANDARD_WEBHOOKS_SECRETS (whsec_ secrets separated
// by spaces), STANDARD_WEBHOOKS_SECRETS_FILE (one secret a line). An empty variable counts as
// unset. Setting both a variable and its _FILE is an error, as is a bad WEBHOOK_URL or an
// unreadable or empty secret file.
config_overrides overrides_from_env(const getenv_function& getenv);

// Every set field wins over cfg; webhook_url, hmac_secret, the breaker and
// pause_after apply to every route, standard_webhooks_secrets to every route signing with
// standard-webhooks.
void apply_overrides(courier_config& cfg, const config_overrides& o);

// Whether the route signs with `s`.
bool signs_with(const route_config& r, signing_scheme s);

// The route's topics: its source, a retry tier per retry_tiers delay, its DLQ (dlq_topic, or the
// default one). The one place a route's topics are named from its config.
route_topics topics_of(const route_config& r);

// What `courier config check` prints of a route's partner contract, a setting a line with its
// value or its default ("rate_limit: 50 requests/s, burst 100"): where a header's value or a
// credential comes from, never the value itself.
std::vector<std::string> describe_partner_contract(const route_config& r);

// What `courier config check` prints of a route with several endpoints: how a record picks its
// endpoints, then each endpoint, its url, its filter and its partner contract, indented.
std::vector<std::string> describe_endpoints(const route_config& r);

// Whether validate() insists on the secrets: `courier topics ensure` sends nothing, so it
// needs none (but a secret that is given must still be well-formed).
enum class secret_check { required, optional };

// Checks what parse_config cannot: at least one route, unique non-empty
// names, non-empty topics, http(s) URLs, positive sizes and durations,
// multiplier >= 1, retry.max >= retry.initial, a non-empty hmac_secret for x-signature,
// well-formed whsec_ secrets (at least one) for standard-webhooks and none for a route that
// does not use it, an admin.listen that is "off" or HOST:PORT, tls.client_cert_file and
// tls.client_key_file set together. (Whether the TLS files load is the preflight's check.)
void validate(const courier_config& cfg, secret_check need = secret_check::required);

// True when url is "http://" or "https://" followed by a host.
bool has_http_scheme(std::string_view url);

}  // namespace courier
