#pragma once

// Every config key, declared once (docs/configuration.md): a field list per section, in CAF's
// inspect idiom. `fields(f, x)` calls f(name, member, options...) for each key of section x; the
// member's initializer is the default and the options are its checks (field_checks.hpp). The
// visitors: the reader and its known-keys check (config_reader.cpp), validate()
// (config_validation.cpp), the key list of the docs (config_keys.cpp) and key_path() below,
// which names a member for the hand-written rules that span fields.

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/config/config.hpp"
#include "core/config/config_key.hpp"
#include "core/config/field_checks.hpp"

namespace courier::config_detail {

// -- keys whose value lands in more than one member ---

// A value given as "text", {"file": PATH} (a secret file) or {"env": NAME}; `source` says which.
struct sourced_text {
  std::string& value;
  std::string& source;
};

// A secret given inline (KEY) or as a secret file (KEY_file): two keys, never both.
inline std::string file_key_of(std::string_view name) { return std::string{name} + "_file"; }
struct secret_or_file {
  std::string& value;
};

// A list of secrets given inline (KEY, an array) or as a secret file of lines (KEY_file).
struct secrets_or_file {
  std::vector<std::string>& values;
};

// The path of a secret file, read at start-up into `content`.
struct secret_file_path {
  std::string& path;
  std::string& content;
};

// routes[].receipts: an object whose key lands in the route itself.
struct receipts_section {
  std::vector<std::string>& response_headers;
};

// -- the sections ---

template <class F>
void fields(F& f, kafka_config& x) {
  f("brokers", x.brokers, not_empty{});
  f("group_id", x.group_id, not_empty{});
  f("properties", x.properties);
  f("revoke_drain_timeout", x.revoke_drain_timeout);
}

template <class F>
void fields(F& f, admin_config& x) {
  f("listen", x.listen, listen_value);
  secret_or_file token{x.token};
  f("token", token);
}

template <class F>
void fields(F& f, signing_config& x) {
  f("scheme", x.schemes, not_empty{"must name at least one scheme"});
  secrets_or_file secrets{x.secrets};
  f("secrets", secrets);
}

template <class F>
void fields(F& f, receipts_section& x) {
  f("response_headers", x.response_headers, each{header_token});
}

template <class F>
void fields(F& f, tls_config& x) {
  f("ca_file", x.ca_file);
  f("client_cert_file", x.client_cert_file);
  f("client_key_file", x.client_key_file);
}

template <class F>
void fields(F& f, rate_limit_config& x) {
  f("requests_per_second", x.requests_per_second,
    required{"the partner's quota in requests per second"}, above_zero);
  f("burst", x.burst, burst_size);
}

template <class F>
void fields(F& f, retry_budget_config& x) {
  f("ratio", x.ratio, zero_or_more);
  f("window", x.window, at_least_duration{std::chrono::seconds{1}});
  f("min_per_second", x.min_per_second, zero_or_more);
}

template <class F>
void fields(F& f, auto_redrive_config& x) {
  f("after", x.after, positive);
  f("lookback", x.lookback, not_negative);
  f("classes", x.classes, described_as{"an error class such as \"http_503\""},
    not_empty{"must name at least one error class (leave it out for the transient ones)"},
    each{known_error_class});
  f("rate", x.rate, records_per_second);
  f("max", x.max, positive);
}

template <class F>
void fields(F& f, oauth2_config& x) {
  f("token_url", x.token_url, http_or_https_prefix);
  f("client_id", x.client_id, not_empty{});
  secret_file_path secret{x.client_secret_file, x.client_secret};
  f("client_secret_file", secret, required{"the file that holds the client secret"});
  f("scope", x.scope);
  f("audience", x.audience);
}

template <class F>
void fields(F& f, auth_config& x) {
  f("bearer_token_file", x.bearer_token_file);
  f("oauth2", x.oauth2);
}

template <class F>
void fields(F& f, breaker_config& x) {
  f("trip_after", x.trip_after, positive);
  f("open_timeout", x.open_timeout, positive);
  f("half_open_max_requests", x.half_open_max_requests, positive);
  f("endpoint_failure_statuses", x.endpoint_failure_statuses, each{not_2xx});
  f("trip_on_permanent_run", x.trip_on_permanent_run, off_or_positive);
  f("gone_probe_interval", x.gone_probe_interval);
}

template <class F>
void fields(F& f, retry_config& x) {
  f("initial", x.initial, positive);
  f("multiplier", x.multiplier, at_least{1.0, "1"});
  f("max", x.max, positive);
  f("max_attempts", x.max_attempts, positive);
  f("max_retry_after", x.max_retry_after, positive);
}

template <class F>
void fields(F& f, http_config& x) {
  f("max_connections", x.max_connections, positive);
  f("timeout", x.timeout, positive);
  f("connect_timeout", x.connect_timeout, positive);
  f("max_response_bytes", x.max_response_bytes, positive);
  f("max_header_bytes", x.max_header_bytes, positive,
    at_most{std::int64_t{1024} * 1024, "1048576 (1 MiB)"});
  // An answer waiting holds its record's slot: a long wait caps the route (Little's law).
  f("gather_answers", x.gather_answers, at_most_duration{std::chrono::milliseconds{100}});
  f("max_connection_age", x.max_connection_age, positive);
}

// Also "none" or "key" alone, for the mode (config_reader.cpp).
template <class F>
void fields(F& f, key_ordering& x) {
  f("mode", x.mode, required{"\"none\" or \"key\""});
  f("on_dead_letter", x.on_dead_letter);
  f("max_parked_keys", x.max_parked_keys, positive);
  f("max_followers", x.max_followers, positive);
}

// The settings of its partner an endpoint may set over its route's (routes[].endpoints[]).
struct endpoint_partner {
  route_config& r;
};

template <class F>
void fields(F& f, endpoint_partner& x) {
  route_config& r = x.r;
  sourced_text url{r.url, r.url_source};
  f("url", url, http_url);
  secret_or_file hmac_secret{r.hmac_secret};
  f("hmac_secret", hmac_secret);
  f("signing", r.signing);
  f("content_type", r.content_type, not_empty{});
  f("adaptive_concurrency", r.adaptive_concurrency);
  f("max_in_flight", r.max_in_flight, positive);
  f("allow_private_targets", r.allow_private_targets);
  f("allow_insecure_http", r.allow_insecure_http);
  f("tls", r.tls);
  f("rate_limit", r.rate_limit);
  f("retry_budget", r.retry_budget);
  f("headers", r.headers, described_as{"an object of header names"});
  f("auth", r.auth);
  f("breaker", r.breaker);
  f("retry", r.retry);
  f("http", r.http);
}

template <class F>
void fields(F& f, endpoint_config& x) {
  f("name", x.name, not_empty{}, endpoint_name);
  f("filter", x.filter);
  endpoint_partner partner{*x.settings};
  fields(f, partner);
}

// Reads an endpoint's own settings (its object without name and filter) over `into`, a copy of
// its route's (config_reader.cpp): what endpoints_of() resolves an endpoint with.
void read_endpoint_settings(const nlohmann::json& overlay, const std::string& path,
                            route_config& into);

template <class F>
void fields(F& f, route_config& x) {
  f("name", x.name, not_empty{});
  f("topic", x.topic, not_empty{});
  // The partner's settings, which an endpoint of a route with several may set over the route's.
  endpoint_partner partner{x};
  fields(f, partner);
  f("idempotency_key_format", x.idempotency_key);
  f("max_in_flight_per_partition", x.max_in_flight_per_partition);
  f("head_of_line_records", x.head_of_line_records);
  f("head_of_line_age", x.head_of_line_age);
  f("pause_after", x.pause_after, positive);
  f("retry_tiers", x.retry_tiers, tier_delays);
  f("dlq_topic", x.dlq_topic);
  f("receipts_topic", x.receipts_topic);
  receipts_section receipts{x.receipt_response_headers};
  f("receipts", receipts);
  f("auto_redrive", x.auto_redrive, described_as{"an object ({} for the defaults)"});
  f("forward_record_headers", x.forward_record_headers);
  f("ordering", x.ordering, described_as{"\"none\", \"key\" or an object with \"mode\""});
  f("endpoints", x.endpoints);
  f("endpoint_from", x.endpoint_from);
  f("on_unknown_endpoint", x.on_unknown_endpoint);
}

template <class F>
void fields(F& f, courier_config& x) {
  f("kafka", x.kafka);
  f("routes", x.routes, not_empty{"at least one route is required"});
  f("admin", x.admin);
  f("http_io_threads", x.http_io_threads, positive, at_most{64});
}

// -- what the visitors ask of a member ---

// A type with a field list: an object in the file.
struct no_visit {
  template <class T, class... Options>
  void operator()(std::string_view /*name*/, T& /*member*/, const Options&... /*options*/) {}
};
template <class T, class = void>
struct is_section : std::false_type {};
template <class T>
struct is_section<T, std::void_t<decltype(fields(std::declval<no_visit&>(), std::declval<T&>()))>>
    : std::true_type {};
template <class T>
inline constexpr bool is_section_v = is_section<T>::value;

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

// A list of sections: an array of objects in the file.
template <class T>
struct is_section_list : std::false_type {};
template <class T>
struct is_section_list<std::vector<T>> : is_section<T> {};

// Whether `Option` is among `Options`.
template <class Option, class... Options>
inline constexpr bool has_option_v = (std::is_same_v<Option, Options> || ...);

// The `Option` among `options`; call only when has_option_v.
template <class Option, class First, class... Rest>
const Option& option_of(const First& first, const Rest&... rest) {
  if constexpr (std::is_same_v<Option, First>) {
    return first;
  } else {
    return option_of<Option>(rest...);
  }
}

// The value a view stands for, for the checks: the member itself otherwise.
template <class T>
const T& checked_value(const T& member) {
  return member;
}
inline const std::string& checked_value(const sourced_text& v) { return v.value; }
inline const std::string& checked_value(const secret_or_file& v) { return v.value; }
inline const std::vector<std::string>& checked_value(const secrets_or_file& v) { return v.values; }
inline const std::string& checked_value(const secret_file_path& v) { return v.path; }

// -- key_path: the name of a member, for the rules that span fields ---

template <class Target>
class key_finder {
 public:
  key_finder(const Target* target, std::string prefix)
      : target_(target), prefix_(std::move(prefix)) {}

  template <class T, class... Options>
  void operator()(std::string_view name, T& member, const Options&... /*options*/) {
    if (found_) {
      return;
    }
    const std::string key = join_key(prefix_, name);
    if (holds(member)) {
      found_ = key;
      return;
    }
    if constexpr (is_section_v<T>) {
      search(key, member);
    } else if constexpr (is_optional<T>::value) {
      if (member.has_value()) {
        search(key, *member);
      }
    }
  }

  const std::optional<std::string>& found() const { return found_; }

 private:
  template <class Section>
  void search(const std::string& key, Section& section) {
    key_finder inner{target_, key};
    fields(inner, section);
    found_ = std::move(inner.found_);
  }

  template <class T>
  bool holds(const T& member) const {
    if constexpr (std::is_same_v<T, sourced_text> || std::is_same_v<T, secret_or_file> ||
                  std::is_same_v<T, secrets_or_file> || std::is_same_v<T, secret_file_path>) {
      return holds(checked_value(member));
    } else if constexpr (std::is_same_v<T, Target>) {
      return &member == target_;
    } else {
      return false;
    }
  }

  const Target* target_;
  std::string prefix_;
  std::optional<std::string> found_;
};

// The key of `member` (a member of `section`, at any depth) relative to the section:
// key_path(route, route.retry.max) is "retry.max". Within a present optional section only.
template <class Section, class Member>
std::string key_path(const Section& section, const Member& member) {
  key_finder<Member> finder{&member, {}};
  // The finder only reads; fields() takes the section as the reader's writable one.
  fields(finder, const_cast<Section&>(section));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  return finder.found().value_or("<unknown key>");
}

}  // namespace courier::config_detail
