#pragma once

// A courier_config as the JSON file `courier run` and `courier topics ensure` read. It writes
// what the tests set (brokers, group, properties; per route its name, topic and URL, and where
// they differ from courier's defaults its DLQ, tiers, in-flight limits, SSRF allowance, TLS
// files, retry and HTTP timeout); the rest keeps courier's default. The secrets stay out of it:
// the process gets them from HMAC_SECRET and STANDARD_WEBHOOKS_SECRETS (or their _FILE
// variables); the signing scheme and the Idempotency-Key format go in where they differ from
// the default.

#include <chrono>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/config/config.hpp"
#include "core/time/duration.hpp"

namespace courier::testing {

inline nlohmann::json config_json(const courier_config& cfg) {
  const route_config defaults;
  nlohmann::json routes = nlohmann::json::array();
  for (const auto& r : cfg.routes) {
    nlohmann::json route = {{"name", r.name}, {"topic", r.topic}, {"url", r.url}};
    // A value equal to courier's default stays out, so the file means what courier means.
    auto put = [&](nlohmann::json& into, const char* key, const auto& value, const auto& dflt) {
      if (!(value == dflt)) {
        into[key] = value;
      }
    };
    auto put_duration = [&](nlohmann::json& into, const char* key, std::chrono::milliseconds value,
                            std::chrono::milliseconds dflt) {
      if (value != dflt) {
        into[key] = format_duration(value);
      }
    };
    put(route, "max_in_flight", r.max_in_flight, defaults.max_in_flight);
    put(route, "max_in_flight_per_partition", r.max_in_flight_per_partition,
        defaults.max_in_flight_per_partition);
    put(route, "dlq_topic", r.dlq_topic, defaults.dlq_topic);
    put(route, "allow_private_targets", r.allow_private_targets, defaults.allow_private_targets);
    put(route, "allow_insecure_http", r.allow_insecure_http, defaults.allow_insecure_http);
    nlohmann::json tls = nlohmann::json::object();
    put(tls, "ca_file", r.tls.ca_file, defaults.tls.ca_file);
    put(tls, "client_cert_file", r.tls.client_cert_file, defaults.tls.client_cert_file);
    put(tls, "client_key_file", r.tls.client_key_file, defaults.tls.client_key_file);
    if (!tls.empty()) {
      route["tls"] = tls;
    }
    if (r.retry_tiers != defaults.retry_tiers) {
      nlohmann::json tiers = nlohmann::json::array();
      for (const auto t : r.retry_tiers) {
        tiers.push_back(format_duration(t));
      }
      route["retry_tiers"] = tiers;
    }
    nlohmann::json retry = nlohmann::json::object();
    put_duration(retry, "initial", r.retry.initial, defaults.retry.initial);
    put_duration(retry, "max", r.retry.max, defaults.retry.max);
    put(retry, "max_attempts", r.retry.max_attempts, defaults.retry.max_attempts);
    if (!retry.empty()) {
      route["retry"] = retry;
    }
    nlohmann::json http = nlohmann::json::object();
    put_duration(http, "timeout", r.http.timeout, defaults.http.timeout);
    if (!http.empty()) {
      route["http"] = http;
    }
    if (r.signing.schemes != defaults.signing.schemes) {
      nlohmann::json schemes = nlohmann::json::array();
      for (const auto s : r.signing.schemes) {
        schemes.push_back(std::string{to_string(s)});
      }
      route["signing"] = {{"scheme", schemes}};
    }
    if (r.idempotency_key != defaults.idempotency_key) {
      route["idempotency_key_format"] = std::string{to_string(r.idempotency_key)};
    }
    routes.push_back(route);
  }
  // Test processes never take the fixed default admin port: several run at once.
  const bool default_admin = cfg.admin.listen == admin_config{}.listen;
  return {
      {"kafka",
       {{"brokers", cfg.kafka.brokers},
        {"group_id", cfg.kafka.group_id},
        {"properties", cfg.kafka.properties}}},
      {"admin", {{"listen", default_admin ? std::string{"127.0.0.1:0"} : cfg.admin.listen}}},
      {"routes", routes},
  };
}

// Writes <dir>/courier.json; returns its path.
inline std::filesystem::path write_config(const courier_config& cfg,
                                          const std::filesystem::path& dir) {
  const auto path = dir / "courier.json";
  std::ofstream{path} << config_json(cfg).dump(2);
  return path;
}

}  // namespace courier::testing
