#include "core/config/config.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "core/config/config_fields.hpp"
#include "core/config/config_key.hpp"
#include "core/config/partner_contract.hpp"
#include "core/crypto/whsec.hpp"
#include "core/time/duration.hpp"

// validate(): every field's own checks, by the field lists (config_fields.hpp), then the rules
// that span fields, hand-written here and in partner_contract.cpp.

namespace courier {
namespace {

using namespace config_detail;  // NOLINT(google-build-using-namespace): the field lists' words

// -- the rules that span fields ---

void validate_signing(const route_config& r, const std::string& path, secret_check need) {
  if (signs_with(r, signing_scheme::x_signature) && r.hmac_secret.empty() &&
      need == secret_check::required) {
    // Never print the secret, only where it should come from.
    throw config_error{join_key(path, key_path(r, r.hmac_secret)),
                       "must not be empty; set HMAC_SECRET or "
                       "HMAC_SECRET_FILE (or hmac_secret_file)"};
  }
  const std::string secrets_key = join_key(path, key_path(r, r.signing.secrets));
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

// routes[].receipts_topic is a topic of its own, and receipts.response_headers needs it.
void validate_receipts(const route_config& r, const std::string& path) {
  if (r.receipts_topic.empty()) {
    if (!r.receipt_response_headers.empty()) {
      throw config_error{join_key(path, key_path(r, r.receipt_response_headers)),
                         "needs routes[].receipts_topic (receipts are off without it)"};
    }
    return;
  }
  const auto topics = topics_of(r);
  std::vector<std::string> others = topics.consumed();
  others.push_back(topics.dlq);
  for (const auto& t : others) {
    if (t == r.receipts_topic) {
      throw config_error{join_key(path, key_path(r, r.receipts_topic)),
                         "must be a topic of its own, not the route's " + in_quotes(t)};
    }
  }
}

// The rules of one partner's settings: a route's, or one endpoint's as resolved over its route.
void partner_rules(const route_config& r, const std::string& path, secret_check need) {
  validate_signing(r, path, need);
  validate_partner_contract(r, path);
  if (r.tls.client_cert_file.empty() != r.tls.client_key_file.empty()) {
    const bool cert = !r.tls.client_cert_file.empty();
    const std::string cert_key = key_path(r.tls, r.tls.client_cert_file);
    const std::string key_key = key_path(r.tls, r.tls.client_key_file);
    throw config_error{
        join_key(path, key_path(r, cert ? r.tls.client_key_file : r.tls.client_cert_file)),
        "must be set with " + (cert ? cert_key : key_key)};
  }
  if (r.retry.max < r.retry.initial) {
    throw config_error{join_key(path, key_path(r, r.retry.max)),
                       "must be at least " + key_path(r, r.retry.initial) + " (" +
                           format_duration(r.retry.initial) + "), got " +
                           format_duration(r.retry.max)};
  }
}

template <class Section>
void validate_section(Section& x, const std::string& path, secret_check need);

// routes[].endpoints: unique names, a url of their own, the features that serve one partner
// only refused, and each endpoint's settings as resolved over its route checked as a route's.
void endpoint_rules(const route_config& r, const std::string& path, secret_check need) {
  const std::string list = join_key(path, key_path(r, r.endpoints));
  if (!r.url.empty()) {
    throw config_error{join_key(path, key_path(r, r.url)),
                       "set either url (or WEBHOOK_URL) or endpoints, not both: each endpoint "
                       "has its own url"};
  }
  if (r.ordering.mode == ordering_mode::key && r.endpoints.size() > 1 && !r.endpoint_from.value) {
    throw config_error{join_key(path, key_path(r, r.ordering)),
                       "\"key\" on a route with several endpoints needs endpoint_from: key order "
                       "is kept per endpoint and key, one endpoint per record (filters that send "
                       "a record to several endpoints would tie their order together)"};
  }
  const auto endpoints = endpoints_of(r);
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    const std::string at = list + "[" + std::to_string(i) + "]";
    endpoint_name(join_key(at, "name"), endpoints[i].name);
    route_config settings = endpoints[i].settings;
    endpoint_partner partner{settings};
    validate_section(partner, at, need);
    partner_rules(settings, at, need);
    if (settings.max_in_flight > r.max_in_flight) {
      throw config_error{join_key(at, key_path(r, r.max_in_flight)),
                         "is the endpoint's share of the route's max_in_flight (" +
                             std::to_string(r.max_in_flight) + ") and cannot be more, got " +
                             std::to_string(settings.max_in_flight)};
    }
  }
  try {
    (void)routing_of(r, endpoints);
  } catch (const routing::spec_error& e) {
    throw config_error{list, e.what()};
  }
}

void rules(const route_config& r, const std::string& path, secret_check need) {
  if (r.endpoints.empty()) {
    partner_rules(r, path, need);
  } else {
    endpoint_rules(r, path, need);
  }
  if (r.dlq_topic == r.topic && !r.dlq_topic.empty()) {
    throw config_error{join_key(path, key_path(r, r.dlq_topic)),
                       "must differ from the source topic"};
  }
  validate_receipts(r, path);
}

// Unique route names; a route ordered by key needs its group to assign with "range" (each
// source partition's tier partitions with its owner), which cooperative-sticky or round-robin
// would not.
void rules(const courier_config& cfg, const std::string& /*path*/, secret_check /*need*/) {
  std::set<std::string> names;
  const std::string routes = key_path(cfg, cfg.routes);
  for (std::size_t i = 0; i < cfg.routes.size(); ++i) {
    const route_config& r = cfg.routes[i];
    const std::string path = routes + "[" + std::to_string(i) + "]";
    if (!names.insert(r.name).second) {
      throw config_error{join_key(path, key_path(r, r.name)),
                         "duplicate route name " + in_quotes(r.name)};
    }
    switch (r.ordering.mode) {
      case ordering_mode::none:
        continue;
      case ordering_mode::key:
        break;
    }
    const auto strategy = cfg.kafka.properties.find("partition.assignment.strategy");
    if (strategy != cfg.kafka.properties.end() && strategy->second != "range") {
      throw config_error{key_path(cfg, cfg.kafka.properties) + "." + strategy->first,
                         "must be \"range\" (or unset) while " +
                             join_key(path, key_path(r, r.ordering)) +
                             " is \"key\": range gives each source partition's retry-tier "
                             "partitions to the same instance; got " +
                             in_quotes(strategy->second)};
    }
  }
}

template <class Section>
void rules(const Section& /*section*/, const std::string& /*path*/, secret_check /*need*/) {}

// -- the visitor ---

template <class Section>
void validate_section(Section& x, const std::string& path, secret_check need);

template <class Option, class Value>
void apply_check(const Option& option, const std::string& key, const Value& value) {
  if constexpr (!std::is_same_v<Option, required> && !std::is_same_v<Option, described_as>) {
    option(key, value);
  }
}

// Runs each field's checks, then those of the sections within it.
class field_validator {
 public:
  field_validator(std::string path, secret_check need) : path_(std::move(path)), need_(need) {}

  // A route with endpoints has no url of its own (endpoint_rules checks each endpoint's).
  void skip_url() { skip_url_ = true; }

  template <class T, class... Options>
  void operator()(std::string_view name, T& member, const Options&... options) {
    const std::string key = join_key(path_, name);
    if constexpr (std::is_same_v<T, std::vector<endpoint_config>>) {
      return;  // resolved over their route first: endpoint_rules
    }
    if (!(skip_url_ && name == "url")) {
      (apply_check(options, key, checked_value(member)), ...);
    }
    if constexpr (is_section_v<T>) {
      validate_section(member, key, need_);
    } else if constexpr (is_optional<T>::value) {
      if (member) {
        validate_section(*member, key, need_);
      }
    } else if constexpr (is_section_list<T>::value) {
      for (std::size_t i = 0; i < member.size(); ++i) {
        validate_section(member[i], key + "[" + std::to_string(i) + "]", need_);
      }
    }
  }

 private:
  std::string path_;
  secret_check need_;
  bool skip_url_ = false;
};

template <class Section>
void validate_section(Section& x, const std::string& path, secret_check need) {
  field_validator v{path, need};
  if constexpr (std::is_same_v<Section, route_config>) {
    if (!x.endpoints.empty()) {
      v.skip_url();
    }
  }
  fields(v, x);
  rules(x, path, need);
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

void validate(const courier_config& cfg, secret_check need) {
  // The validator only reads; fields() takes the config as the reader's writable one.
  validate_section(
      const_cast<courier_config&>(cfg),  // NOLINT(cppcoreguidelines-pro-type-const-cast)
      "", need);
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
