#include "core/config/config.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/config/config_key.hpp"
#include "core/time/duration.hpp"

namespace courier {
namespace {

using config_detail::in_quotes;
using config_detail::join_key;
using nlohmann::json;

constexpr const char* duration_forms =
    "a duration such as \"500ms\", \"3s\", \"5m\", \"1h\" or a number of "
    "seconds";

config_error wrong_type(const std::string& key, std::string_view expected, const json& got) {
  return config_error{
      key, "expected " + std::string{expected} + ", got " + std::string{got.type_name()}};
}

// Unknown keys are errors so that a typo ("trip_afer") cannot silently fall
// back to a default.
void check_object(const json& obj, const std::string& path,
                  std::initializer_list<std::string_view> known) {
  if (!obj.is_object()) {
    throw wrong_type(path.empty() ? "<root>" : path, "an object", obj);
  }
  for (const auto& item : obj.items()) {
    bool found = false;
    for (std::string_view k : known) {
      found = found || k == item.key();
    }
    if (!found) {
      std::string expected;
      for (std::string_view k : known) {
        expected += (expected.empty() ? "" : ", ") + std::string{k};
      }
      throw config_error{join_key(path, item.key()), "unknown key; expected one of: " + expected};
    }
  }
}

const json* find(const json& obj, std::string_view key) {
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string read_string(const json& obj, const std::string& path, std::string_view key,
                        std::string fallback) {
  const json* v = find(obj, key);
  if (v == nullptr) {
    return fallback;
  }
  if (!v->is_string()) {
    throw wrong_type(join_key(path, key), "a string", *v);
  }
  return v->get<std::string>();
}

std::int64_t read_integer(const json& v, const std::string& key) {
  if (v.is_number_float()) {
    throw config_error{key, "expected an integer, got " + v.dump()};
  }
  if (!v.is_number_integer()) {
    throw wrong_type(key, "an integer", v);
  }
  if (v.is_number_unsigned() &&
      v.get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw config_error{key, "integer out of range, got " + v.dump()};
  }
  return v.get<std::int64_t>();
}

bool read_bool(const json& obj, const std::string& path, std::string_view key, bool fallback) {
  const json* v = find(obj, key);
  if (v == nullptr) {
    return fallback;
  }
  if (!v->is_boolean()) {
    throw wrong_type(join_key(path, key), "true or false", *v);
  }
  return v->get<bool>();
}

int read_int(const json& obj, const std::string& path, std::string_view key, int fallback) {
  const json* v = find(obj, key);
  if (v == nullptr) {
    return fallback;
  }
  const std::string full = join_key(path, key);
  const std::int64_t n = read_integer(*v, full);
  if (n < std::numeric_limits<int>::min() || n > std::numeric_limits<int>::max()) {
    throw config_error{full, "integer out of range, got " + v->dump()};
  }
  return static_cast<int>(n);
}

enum class zero { refused, allowed };

std::size_t read_size(const json& obj, const std::string& path, std::string_view key,
                      std::size_t fallback, zero z = zero::refused) {
  const json* v = find(obj, key);
  if (v == nullptr) {
    return fallback;
  }
  const std::string full = join_key(path, key);
  const std::int64_t n = read_integer(*v, full);
  // Checked here rather than in validate(): a size_t cannot hold the sign.
  if (n < 0 || (n == 0 && z == zero::refused)) {
    throw config_error{full, std::string{z == zero::refused ? "must be a positive integer"
                                                            : "must be 0 or a positive integer"} +
                                 ", got " + v->dump()};
  }
  return static_cast<std::size_t>(n);
}

// An array of HTTP status codes (100..599).
std::vector<int> read_statuses(const json& obj, const std::string& path, std::string_view key,
                               std::vector<int> fallback) {
  const json* v = find(obj, key);
  if (v == nullptr) {
    return fallback;
  }
  const std::string full = join_key(path, key);
  if (!v->is_array()) {
    throw wrong_type(full, "an array of HTTP status codes", *v);
  }
  std::vector<int> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const std::string item = full + "[" + std::to_string(i) + "]";
    const std::int64_t n = read_integer((*v)[i], item);
    if (n < 100 || n > 599) {
      throw config_error{item, "must be an HTTP status code (100..599), got " + (*v)[i].dump()};
    }
    out.push_back(static_cast<int>(n));
  }
  return out;
}

double read_double(const json& obj, const std::string& path, std::string_view key,
                   double fallback) {
  const json* v = find(obj, key);
  if (v == nullptr) {
    return fallback;
  }
  if (!v->is_number()) {
    throw wrong_type(join_key(path, key), "a number", *v);
  }
  return v->get<double>();
}

// A duration given as text ("500ms", "3s", "5m", "1h") or as a number of seconds.
std::chrono::milliseconds duration_value(const json& v, const std::string& full) {
  if (!v.is_string() && !v.is_number()) {
    throw wrong_type(full, duration_forms, v);
  }
  // A number is seconds; its JSON text goes through the same parser so that
  // 1.5 and "1.5" mean exactly the same.
  const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  const auto d = parse_duration(text);
  if (!d) {
    throw config_error{full,
                       std::string{"expected "} + duration_forms + ", got " + in_quotes(text)};
  }
  return *d;
}

std::chrono::milliseconds read_duration(const json& obj, const std::string& path,
                                        std::string_view key, std::chrono::milliseconds fallback) {
  const json* v = find(obj, key);
  if (v == nullptr) {
    return fallback;
  }
  return duration_value(*v, join_key(path, key));
}

kafka_config parse_kafka(const json& obj, const std::string& path) {
  check_object(obj, path, {"brokers", "group_id", "properties", "revoke_drain_timeout"});
  kafka_config k;
  k.brokers = read_string(obj, path, "brokers", k.brokers);
  k.group_id = read_string(obj, path, "group_id", k.group_id);
  if (const json* props = find(obj, "properties")) {
    const std::string props_path = join_key(path, "properties");
    if (!props->is_object()) {
      throw wrong_type(props_path, "an object", *props);
    }
    for (const auto& item : props->items()) {
      const std::string key = props_path + "[" + in_quotes(item.key()) + "]";
      // librdkafka takes every property as text; numbers and booleans are
      // accepted as written so "session.timeout.ms": 45000 just works.
      if (item.value().is_string()) {
        k.properties[item.key()] = item.value().get<std::string>();
      } else if (item.value().is_number() || item.value().is_boolean()) {
        k.properties[item.key()] = item.value().dump();
      } else {
        throw wrong_type(key, "a string, number or boolean", item.value());
      }
    }
  }
  k.revoke_drain_timeout = read_duration(obj, path, "revoke_drain_timeout", k.revoke_drain_timeout);
  // The group waits for a revoke at most its rebalance timeout, max.poll.interval.ms.
  std::int64_t rebalance_timeout_ms = 300000;
  if (const auto it = k.properties.find("max.poll.interval.ms"); it != k.properties.end()) {
    char* end = nullptr;
    const auto v = std::strtoll(it->second.c_str(), &end, 10);
    if (end != it->second.c_str() && *end == '\0' && v > 0) {
      rebalance_timeout_ms = v;
    }
  }
  if (k.revoke_drain_timeout.count() >= rebalance_timeout_ms) {
    throw config_error{join_key(path, "revoke_drain_timeout"),
                       "must be below max.poll.interval.ms (" +
                           std::to_string(rebalance_timeout_ms) +
                           " ms), the time the group waits for a revoke; got " +
                           std::to_string(k.revoke_drain_timeout.count()) + " ms"};
  }
  return k;
}

breaker_config parse_breaker(const json& obj, const std::string& path) {
  check_object(obj, path,
               {"trip_after", "open_timeout", "half_open_max_requests", "endpoint_failure_statuses",
                "trip_on_permanent_run", "gone_probe_interval"});
  breaker_config b;
  b.endpoint_failure_statuses =
      read_statuses(obj, path, "endpoint_failure_statuses", b.endpoint_failure_statuses);
  b.trip_on_permanent_run = read_int(obj, path, "trip_on_permanent_run", b.trip_on_permanent_run);
  b.trip_after = read_int(obj, path, "trip_after", b.trip_after);
  b.open_timeout = read_duration(obj, path, "open_timeout", b.open_timeout);
  b.half_open_max_requests =
      read_int(obj, path, "half_open_max_requests", b.half_open_max_requests);
  b.gone_probe_interval = read_duration(obj, path, "gone_probe_interval", b.gone_probe_interval);
  return b;
}

retry_config parse_retry(const json& obj, const std::string& path) {
  check_object(obj, path, {"initial", "multiplier", "max", "max_attempts", "max_retry_after"});
  retry_config r;
  r.initial = read_duration(obj, path, "initial", r.initial);
  r.multiplier = read_double(obj, path, "multiplier", r.multiplier);
  r.max = read_duration(obj, path, "max", r.max);
  r.max_attempts = read_int(obj, path, "max_attempts", r.max_attempts);
  r.max_retry_after = read_duration(obj, path, "max_retry_after", r.max_retry_after);
  return r;
}

http_config parse_http(const json& obj, const std::string& path) {
  check_object(obj, path,
               {"max_connections", "timeout", "connect_timeout", "max_response_bytes",
                "max_header_bytes", "gather_answers", "max_connection_age"});
  http_config h;
  h.max_connections = read_size(obj, path, "max_connections", h.max_connections);
  h.timeout = read_duration(obj, path, "timeout", h.timeout);
  h.connect_timeout = read_duration(obj, path, "connect_timeout", h.connect_timeout);
  h.max_response_bytes = read_size(obj, path, "max_response_bytes", h.max_response_bytes);
  h.max_header_bytes = read_size(obj, path, "max_header_bytes", h.max_header_bytes);
  h.gather_answers = read_duration(obj, path, "gather_answers", h.gather_answers);
  h.max_connection_age = read_duration(obj, path, "max_connection_age", h.max_connection_age);
  return h;
}

tls_config parse_tls(const json& obj, const std::string& path) {
  check_object(obj, path, {"ca_file", "client_cert_file", "client_key_file"});
  tls_config t;
  t.ca_file = read_string(obj, path, "ca_file", t.ca_file);
  t.client_cert_file = read_string(obj, path, "client_cert_file", t.client_cert_file);
  t.client_key_file = read_string(obj, path, "client_key_file", t.client_key_file);
  return t;
}

// A secret given inline (`key`) or as a file (`key` + "_file"); both at once is a mistake.
std::string read_secret(const json& obj, const std::string& path, const std::string& key) {
  const std::string file_key = key + "_file";
  const json* inline_value = find(obj, key);
  const json* file = find(obj, file_key);
  if (inline_value != nullptr && file != nullptr) {
    throw config_error{join_key(path, file_key),
                       "set either " + key + " or " + file_key + ", not both"};
  }
  if (file != nullptr) {
    const std::string file_path = read_string(obj, path, file_key, {});
    return read_secret_file(file_path, join_key(path, file_key));
  }
  return read_string(obj, path, key, {});
}

std::vector<signing_scheme> read_schemes(const json& v, const std::string& full) {
  const char* const expected = "expected \"x-signature\" or \"standard-webhooks\"";
  const auto one = [&](const json& item, const std::string& key) {
    if (!item.is_string()) {
      throw wrong_type(key, "a scheme name", item);
    }
    const auto name = item.get<std::string>();
    for (const auto s : {signing_scheme::x_signature, signing_scheme::standard_webhooks}) {
      if (name == to_string(s)) {
        return s;
      }
    }
    throw config_error{key, "unknown signing scheme " + in_quotes(name) + "; " + expected};
  };
  if (v.is_string()) {
    return {one(v, full)};
  }
  if (!v.is_array()) {
    throw wrong_type(full, "a scheme name or an array of them", v);
  }
  if (v.empty()) {
    throw config_error{full, "must name at least one scheme; " + std::string{expected}};
  }
  std::vector<signing_scheme> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string key = full + "[" + std::to_string(i) + "]";
    const auto s = one(v[i], key);
    if (std::find(out.begin(), out.end(), s) != out.end()) {
      throw config_error{key, "repeats " + in_quotes(to_string(s))};
    }
    out.push_back(s);
  }
  return out;
}

// Error messages about secrets name the key and the type, never a value.
std::vector<std::string> read_secret_list(const json& v, const std::string& full) {
  if (!v.is_array()) {
    throw wrong_type(full, "an array of \"whsec_...\" secrets", v);
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      throw wrong_type(full + "[" + std::to_string(i) + "]", "a string", v[i]);
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

signing_config parse_signing(const json& obj, const std::string& path) {
  check_object(obj, path, {"scheme", "secrets", "secrets_file"});
  signing_config s;
  if (const json* v = find(obj, "scheme")) {
    s.schemes = read_schemes(*v, join_key(path, "scheme"));
  }
  const json* secrets = find(obj, "secrets");
  const json* file = find(obj, "secrets_file");
  if (secrets != nullptr && file != nullptr) {
    throw config_error{join_key(path, "secrets_file"),
                       "set either secrets or secrets_file, not both"};
  }
  if (secrets != nullptr) {
    s.secrets = read_secret_list(*secrets, join_key(path, "secrets"));
  }
  if (file != nullptr) {
    s.secrets = read_secret_lines(read_string(obj, path, "secrets_file", {}),
                                  join_key(path, "secrets_file"));
  }
  return s;
}

// One of an enum's names, as to_string spells them; an error lists them all.
template <typename Enum>
Enum read_enum_name(const std::string& name, const std::string& key,
                    std::initializer_list<Enum> values) {
  std::string expected;
  for (const auto v : values) {
    if (name == to_string(v)) {
      return v;
    }
    expected += (expected.empty() ? "" : " or ") + in_quotes(std::string{to_string(v)});
  }
  throw config_error{key, "expected " + expected + ", got " + in_quotes(name)};
}

idempotency_key_format read_key_format(const json& obj, const std::string& path) {
  return read_enum_name(read_string(obj, path, "idempotency_key_format", "plain"),
                        join_key(path, "idempotency_key_format"),
                        {idempotency_key_format::plain, idempotency_key_format::sf_string});
}

// routes[].ordering: "none", "key", or an object with mode and the bounds.
key_ordering parse_ordering(const json& v, const std::string& path) {
  key_ordering o;
  const std::initializer_list<ordering_mode> modes{ordering_mode::none, ordering_mode::key};
  if (v.is_string()) {
    o.mode = read_enum_name(v.get<std::string>(), path, modes);
    return o;
  }
  if (!v.is_object()) {
    throw wrong_type(path, "\"none\", \"key\" or an object with \"mode\"", v);
  }
  check_object(v, path, {"mode", "on_dead_letter", "max_parked_keys", "max_followers"});
  if (find(v, "mode") == nullptr) {
    throw config_error{join_key(path, "mode"), "must be set: \"none\" or \"key\""};
  }
  o.mode = read_enum_name(read_string(v, path, "mode", {}), join_key(path, "mode"), modes);
  o.on_dead_letter = read_enum_name(
      read_string(v, path, "on_dead_letter", std::string{to_string(o.on_dead_letter)}),
      join_key(path, "on_dead_letter"),
      {dead_letter_followers::release, dead_letter_followers::park});
  o.max_parked_keys = read_size(v, path, "max_parked_keys", o.max_parked_keys);
  o.max_followers = read_size(v, path, "max_followers", o.max_followers);
  return o;
}

rate_limit_config parse_rate_limit(const json& obj, const std::string& path) {
  check_object(obj, path, {"requests_per_second", "burst"});
  if (find(obj, "requests_per_second") == nullptr) {
    throw config_error{join_key(path, "requests_per_second"),
                       "must be set: the partner's quota in requests per second"};
  }
  rate_limit_config r;
  r.requests_per_second = read_double(obj, path, "requests_per_second", 0);
  r.burst = read_double(obj, path, "burst", r.burst);
  return r;
}

auto_redrive_config parse_auto_redrive(const json& obj, const std::string& path);

retry_budget_config parse_retry_budget(const json& obj, const std::string& path) {
  check_object(obj, path, {"ratio", "window", "min_per_second"});
  retry_budget_config b;
  b.ratio = read_double(obj, path, "ratio", b.ratio);
  b.window = read_duration(obj, path, "window", b.window);
  b.min_per_second = read_double(obj, path, "min_per_second", b.min_per_second);
  return b;
}

// A value that may be a secret: "text", {"file": PATH} (the file read as every secret file is)
// or {"env": NAME} (the variable must be set and not empty). `source` says which ("inline",
// "file PATH", "env NAME"). Errors name the key, never a value.
struct sourced_value {
  std::string value;
  std::string source;
};

sourced_value read_sourced_value(const json& v, const std::string& key) {
  if (v.is_string()) {
    return sourced_value{v.get<std::string>(), "inline"};
  }
  if (!v.is_object()) {
    throw wrong_type(key, "a string, {\"file\": PATH} or {\"env\": NAME}", v);
  }
  check_object(v, key, {"file", "env"});
  const json* file = find(v, "file");
  const json* env = find(v, "env");
  if ((file == nullptr) == (env == nullptr)) {
    throw config_error{key, "set exactly one of file and env"};
  }
  if (file != nullptr) {
    const auto path = read_string(v, key, "file", {});
    return sourced_value{read_secret_file(path, join_key(key, "file")), "file " + path};
  }
  const auto var = read_string(v, key, "env", {});
  const char* value =
      var.empty()
          ? nullptr
          : std::getenv(var.c_str());  // NOLINT(concurrency-mt-unsafe): start-up, one thread
  if (value == nullptr || *value == '\0') {
    throw config_error{join_key(key, "env"),
                       "environment variable " + in_quotes(var) + " is not set or empty"};
  }
  return sourced_value{value, "env " + var};
}

static_header read_header(const std::string& name, const json& v, const std::string& key) {
  auto read = read_sourced_value(v, key);
  static_header h;
  h.name = name;
  h.value = std::move(read.value);
  h.source = std::move(read.source);
  return h;
}

std::vector<static_header> parse_headers(const json& obj, const std::string& path) {
  if (!obj.is_object()) {
    throw wrong_type(path, "an object of header names", obj);
  }
  std::vector<static_header> out;
  for (const auto& item : obj.items()) {
    out.push_back(read_header(item.key(), item.value(), join_key(path, item.key())));
  }
  return out;
}

auth_config parse_auth(const json& obj, const std::string& path) {
  check_object(obj, path, {"bearer_token_file", "oauth2"});
  auth_config a;
  a.bearer_token_file = read_string(obj, path, "bearer_token_file", {});
  if (const json* o = find(obj, "oauth2")) {
    const std::string opath = join_key(path, "oauth2");
    check_object(*o, opath, {"token_url", "client_id", "client_secret_file", "scope", "audience"});
    oauth2_config c;
    c.token_url = read_string(*o, opath, "token_url", {});
    c.client_id = read_string(*o, opath, "client_id", {});
    c.client_secret_file = read_string(*o, opath, "client_secret_file", {});
    if (c.client_secret_file.empty()) {
      throw config_error{join_key(opath, "client_secret_file"),
                         "must be set: the file that holds the client secret"};
    }
    c.client_secret = read_secret_file(c.client_secret_file, join_key(opath, "client_secret_file"));
    c.scope = read_string(*o, opath, "scope", {});
    c.audience = read_string(*o, opath, "audience", {});
    a.oauth2 = std::move(c);
  }
  if (!a.bearer_token_file.empty() && a.oauth2) {
    throw config_error{join_key(path, "oauth2"),
                       "set either bearer_token_file or oauth2, not both"};
  }
  return a;
}

// A list of strings; `item` says what each is ("a header name") in a type error.
std::vector<std::string> read_name_list(const json& obj, const std::string& path,
                                        std::string_view key, std::vector<std::string> fallback,
                                        const std::string& item = "a header name") {
  const json* v = find(obj, key);
  if (v == nullptr) {
    return fallback;
  }
  const std::string full = join_key(path, key);
  if (!v->is_array()) {
    throw wrong_type(full, "an array, each " + item, *v);
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string()) {
      throw wrong_type(full + "[" + std::to_string(i) + "]", item, (*v)[i]);
    }
    out.push_back((*v)[i].get<std::string>());
  }
  return out;
}

// routes[].auto_redrive: {} turns it on with every default.
auto_redrive_config parse_auto_redrive(const json& obj, const std::string& path) {
  if (!obj.is_object()) {
    throw wrong_type(path, "an object ({} for the defaults)", obj);
  }
  check_object(obj, path, {"after", "lookback", "classes", "rate", "max"});
  auto_redrive_config a;
  a.after = read_duration(obj, path, "after", a.after);
  a.lookback = read_duration(obj, path, "lookback", a.lookback);
  a.classes =
      read_name_list(obj, path, "classes", a.classes, "an error class such as \"http_503\"");
  a.rate = read_double(obj, path, "rate", a.rate);
  a.max = read_size(obj, path, "max", a.max);
  return a;
}

route_config parse_route(const json& obj, const std::string& path) {
  check_object(obj, path,
               {"name",
                "topic",
                "url",
                "hmac_secret",
                "hmac_secret_file",
                "signing",
                "idempotency_key_format",
                "content_type",
                "max_in_flight",
                "max_in_flight_per_partition",
                "adaptive_concurrency",
                "head_of_line_records",
                "head_of_line_age",
                "pause_after",
                "retry_tiers",
                "dlq_topic",
                "receipts_topic",
                "receipts",
                "allow_private_targets",
                "allow_insecure_http",
                "tls",
                "rate_limit",
                "retry_budget",
                "auto_redrive",
                "headers",
                "auth",
                "forward_record_headers",
                "breaker",
                "retry",
                "http",
                "ordering"});
  route_config r;
  r.name = read_string(obj, path, "name", r.name);
  r.topic = read_string(obj, path, "topic", r.topic);
  if (const json* u = find(obj, "url")) {
    auto url = read_sourced_value(*u, join_key(path, "url"));
    r.url = std::move(url.value);
    r.url_source = std::move(url.source);
  }
  r.hmac_secret = read_secret(obj, path, "hmac_secret");
  if (const json* s = find(obj, "signing")) {
    r.signing = parse_signing(*s, join_key(path, "signing"));
  }
  r.idempotency_key = read_key_format(obj, path);
  r.content_type = read_string(obj, path, "content_type", r.content_type);
  r.max_in_flight = read_size(obj, path, "max_in_flight", r.max_in_flight);
  r.max_in_flight_per_partition = read_size(obj, path, "max_in_flight_per_partition",
                                            r.max_in_flight_per_partition, zero::allowed);
  r.adaptive_concurrency = read_bool(obj, path, "adaptive_concurrency", r.adaptive_concurrency);
  r.head_of_line_records =
      read_size(obj, path, "head_of_line_records", r.head_of_line_records, zero::allowed);
  r.head_of_line_age = read_duration(obj, path, "head_of_line_age", r.head_of_line_age);
  r.pause_after = read_duration(obj, path, "pause_after", r.pause_after);
  if (const json* tiers = find(obj, "retry_tiers")) {
    const std::string tiers_path = join_key(path, "retry_tiers");
    if (!tiers->is_array()) {
      throw wrong_type(tiers_path, "an array of durations", *tiers);
    }
    r.retry_tiers.clear();
    for (std::size_t i = 0; i < tiers->size(); ++i) {
      r.retry_tiers.push_back(
          duration_value((*tiers)[i], tiers_path + "[" + std::to_string(i) + "]"));
    }
  }
  r.dlq_topic = read_string(obj, path, "dlq_topic", r.dlq_topic);
  r.receipts_topic = read_string(obj, path, "receipts_topic", r.receipts_topic);
  if (const json* rc = find(obj, "receipts")) {
    const std::string rpath = join_key(path, "receipts");
    if (!rc->is_object()) {
      throw wrong_type(rpath, "an object", *rc);
    }
    check_object(*rc, rpath, {"response_headers"});
    r.receipt_response_headers = read_name_list(*rc, rpath, "response_headers", {});
  }
  r.allow_private_targets = read_bool(obj, path, "allow_private_targets", r.allow_private_targets);
  r.allow_insecure_http = read_bool(obj, path, "allow_insecure_http", r.allow_insecure_http);
  if (const json* t = find(obj, "tls")) {
    r.tls = parse_tls(*t, join_key(path, "tls"));
  }
  if (const json* q = find(obj, "rate_limit")) {
    r.rate_limit = parse_rate_limit(*q, join_key(path, "rate_limit"));
  }
  if (const json* b = find(obj, "retry_budget")) {
    r.retry_budget = parse_retry_budget(*b, join_key(path, "retry_budget"));
  }
  if (const json* a = find(obj, "auto_redrive")) {
    r.auto_redrive = parse_auto_redrive(*a, join_key(path, "auto_redrive"));
  }
  if (const json* h = find(obj, "headers")) {
    r.headers = parse_headers(*h, join_key(path, "headers"));
  }
  if (const json* a = find(obj, "auth")) {
    r.auth = parse_auth(*a, join_key(path, "auth"));
  }
  r.forward_record_headers =
      read_name_list(obj, path, "forward_record_headers", r.forward_record_headers);
  if (const json* b = find(obj, "breaker")) {
    r.breaker = parse_breaker(*b, join_key(path, "breaker"));
  }
  if (const json* rt = find(obj, "retry")) {
    r.retry = parse_retry(*rt, join_key(path, "retry"));
  }
  if (const json* h = find(obj, "http")) {
    r.http = parse_http(*h, join_key(path, "http"));
  }
  if (const json* o = find(obj, "ordering")) {
    r.ordering = parse_ordering(*o, join_key(path, "ordering"));
  }
  return r;
}

admin_config parse_admin(const json& obj, const std::string& path) {
  check_object(obj, path, {"listen", "token", "token_file"});
  admin_config a;
  a.listen = read_string(obj, path, "listen", a.listen);
  a.token = read_secret(obj, path, "token");
  return a;
}

}  // namespace

courier_config parse_config(const json& doc) {
  check_object(doc, "", {"kafka", "routes", "admin", "http_io_threads"});
  courier_config cfg;
  if (const json* k = find(doc, "kafka")) {
    cfg.kafka = parse_kafka(*k, "kafka");
  }
  if (const json* routes = find(doc, "routes")) {
    if (!routes->is_array()) {
      throw wrong_type("routes", "an array", *routes);
    }
    for (std::size_t i = 0; i < routes->size(); ++i) {
      cfg.routes.push_back(parse_route((*routes)[i], "routes[" + std::to_string(i) + "]"));
    }
  }
  if (const json* a = find(doc, "admin")) {
    cfg.admin = parse_admin(*a, "admin");
  }
  cfg.http_io_threads = read_size(doc, "", "http_io_threads", cfg.http_io_threads);
  return cfg;
}

courier_config load_config_file(const std::filesystem::path& path) {
  const std::string key = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw config_error{key, "cannot read config file: is a directory"};
  }
  std::ifstream in{path, std::ios::binary};
  if (!in) {
    throw config_error{key, "cannot read config file: " + std::generic_category().message(errno)};
  }
  std::ostringstream content;
  content << in.rdbuf();
  json doc;
  try {
    doc = json::parse(content.str());
  } catch (const json::parse_error& e) {
    // Drop nlohmann's "[json.exception.parse_error.101] " tag: operators need
    // the position and the reason, not the library's error id.
    std::string reason = e.what();
    if (const auto end = reason.find("] "); end != std::string::npos) {
      reason.erase(0, end + 2);
    }
    // Nor the text around the error ("; last read: '...'"): it may be a secret's value.
    if (const auto last_read = reason.find("; last read: '"); last_read != std::string::npos) {
      const auto expected = reason.rfind("; expected ");
      const auto until =
          expected != std::string::npos && expected > last_read ? expected : reason.size();
      reason.erase(last_read, until - last_read);
    }
    throw config_error{key, "invalid JSON at byte " + std::to_string(e.byte) + ": " + reason};
  }
  return parse_config(doc);
}

}  // namespace courier
