#include "core/config/field_checks.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/config/config_key.hpp"
#include "core/config/partner_contract.hpp"
#include "core/http/endpoint.hpp"
#include "core/model/error_classes.hpp"
#include "core/time/duration.hpp"

namespace courier::config_detail {
namespace {

std::string show(double d) { return nlohmann::json(d).dump(); }

void require_positive(const std::string& key, std::int64_t value) {
  if (value <= 0) {
    throw config_error{key, "must be a positive integer, got " + std::to_string(value)};
  }
}

}  // namespace

void positive_check::operator()(const std::string& key, std::size_t v) const {
  require_positive(key, static_cast<std::int64_t>(v));
}

void positive_check::operator()(const std::string& key, int v) const { require_positive(key, v); }

void positive_check::operator()(const std::string& key, std::chrono::milliseconds v) const {
  if (v.count() <= 0) {
    throw config_error{key, "must be a positive duration, got " + format_duration(v)};
  }
}

void off_or_positive(const std::string& key, int v) {
  if (v < 0) {
    throw config_error{key, "must be 0 (off) or a positive integer, got " + std::to_string(v)};
  }
}

void not_negative(const std::string& key, std::chrono::milliseconds v) {
  if (v.count() < 0) {
    throw config_error{key, "must not be negative"};
  }
}

void zero_or_more(const std::string& key, double v) {
  if (!(v >= 0) || !std::isfinite(v)) {
    throw config_error{key, "must be 0 or more, got " + show(v)};
  }
}

void above_zero(const std::string& key, double v) {
  if (!(v > 0) || !std::isfinite(v)) {
    throw config_error{key, "must be a number above 0, got " + show(v)};
  }
}

void known_error_class(const std::string& key, const std::string& name) {
  if (is_error_class(name)) {
    return;
  }
  std::string known;
  for (const auto c : error_classes) {
    known += (known.empty() ? "" : ", ") + std::string{c};
  }
  throw config_error{key, "\"" + name +
                              "\" is not an error class courier writes, so it would select nothing "
                              "(one of: " +
                              known + ")"};
}

void not_empty::operator()(const std::string& key, const std::string& v) const {
  if (v.empty()) {
    throw config_error{key, problem};
  }
}

void at_most::operator()(const std::string& key, std::size_t v) const {
  if (v > static_cast<std::size_t>(limit)) {
    const std::string limit_text = shown != nullptr ? shown : std::to_string(limit);
    throw config_error{key, "must be at most " + limit_text + ", got " + std::to_string(v)};
  }
}

void at_most_duration::operator()(const std::string& key, std::chrono::milliseconds v) const {
  if (v > limit) {
    throw config_error{key,
                       "must be at most " + format_duration(limit) + ", got " + format_duration(v)};
  }
}

void at_least_duration::operator()(const std::string& key, std::chrono::milliseconds v) const {
  if (v < limit) {
    throw config_error{
        key, "must be at least " + format_duration(limit) + ", got " + format_duration(v)};
  }
}

void at_least::operator()(const std::string& key, double v) const {
  if (!(v >= limit)) {
    throw config_error{key, "must be at least " + std::string{shown} + ", got " + show(v)};
  }
}

void http_url(const std::string& key, const std::string& url) {
  if (!has_http_scheme(url)) {
    throw config_error{key,
                       "must start with http:// or https:// and name a "
                       "host (or set WEBHOOK_URL / --webhook-url), got " +
                           in_quotes(http::display_url(url))};
  }
}

void http_or_https_prefix(const std::string& key, const std::string& url) {
  if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) {
    throw config_error{key, "must start with http:// or https:// and name a host, got " +
                                in_quotes(http::display_url(url))};
  }
}

void listen_value(const std::string& key, const std::string& listen) {
  if (listen != "off" && !parse_listen_address(listen)) {
    throw config_error{key,
                       "expected \"off\" or HOST:PORT (an IPv4 address, [IPv6] or localhost, "
                       "port 0..65535), got " +
                           in_quotes(listen)};
  }
}

void not_2xx(const std::string& key, int status) {
  if (status >= 200 && status < 300) {
    // A 2xx is a delivery; holding it would deliver the record forever.
    throw config_error{key, "must not be a 2xx status, got " + std::to_string(status)};
  }
}

// A check's parameters are the key and its value, as every check's are.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
void header_token(const std::string& key, const std::string& name) {
  if (!is_token(name)) {
    throw config_error{key, "is not a valid HTTP header name"};
  }
}

// NOLINTNEXTLINE(bugprone-easily-swappable-parameters): the key and its value, as header_token
void endpoint_name(const std::string& key, const std::string& name) {
  const bool allowed = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
  if (name.empty() || name.size() > 64 || !allowed) {
    throw config_error{key,
                       "must be 1 to 64 letters, digits, '.', '_' or '-' (it names the "
                       "endpoint in headers, metrics and admin paths)"};
  }
}

void burst_size(const std::string& key, double burst) {
  if (burst != 0 && !(burst >= 1 && std::isfinite(burst))) {
    throw config_error{
        key, "must be at least 1 request (0 or unset: one second of requests), got " + show(burst)};
  }
}

void records_per_second(const std::string& key, double rate) {
  if (!(rate > 0) || rate > 100000) {
    throw config_error{key, "must be a number of records per second in (0, 100000]"};
  }
}

void tier_delays(const std::string& key, const std::vector<std::chrono::milliseconds>& v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    positive(key + "[" + std::to_string(i) + "]", v[i]);
    for (std::size_t j = 0; j < i; ++j) {
      if (v[j] == v[i]) {
        // Two tiers with one delay would share one topic.
        throw config_error{key + "[" + std::to_string(i) + "]",
                           "repeats " + format_duration(v[i]) + "; every tier needs its own delay"};
      }
    }
  }
}

}  // namespace courier::config_detail
