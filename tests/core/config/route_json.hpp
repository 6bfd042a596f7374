#pragma once

// One route's config as JSON for the config tests, and what parse and validate make of it.

#include <string>

#include <nlohmann/json.hpp>

#include "core/config/config.hpp"

namespace courier::testing {

// A valid route "shipments" with `extra` merged in.
inline nlohmann::json route(const nlohmann::json& extra) {
  nlohmann::json r = {{"name", "shipments"},
                      {"topic", "brew.shipments.v1"},
                      {"url", "http://127.0.0.1:8090/deliver"},
                      {"hmac_secret", "s3cret"}};
  r.update(extra);
  return r;
}

inline courier_config parsed(const nlohmann::json& r) {
  return parse_config({{"routes", nlohmann::json::array({r})}});
}

// The config_error parse or validate gives the whole document, or "no error".
inline std::string error_of(const nlohmann::json& doc) {
  try {
    validate(parse_config(doc));
  } catch (const config_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace courier::testing
