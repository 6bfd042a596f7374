#pragma once

// The per-field checks of the field lists (config_fields.hpp): each is called by validate() as
// check(key, value) and throws config_error{key, problem}. Two of the arguments a field may take
// are no checks but tell the reader how to read it: `required` and `described_as`.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.hpp"

namespace courier::config_detail {

// Absent is an error, "must be set: <why>" (an empty secret file path too).
struct required {
  const char* why;
};

// What a wrong JSON type is said to have expected ("an object ({} for the defaults)"), or for a
// list of names, what each name is ("an error class such as \"http_503\"").
struct described_as {
  const char* what;
};

// Above 0. A count of size_t is checked as it is read, too: a size_t cannot hold the sign.
struct positive_check {
  void operator()(const std::string& key, std::size_t v) const;
  void operator()(const std::string& key, int v) const;
  void operator()(const std::string& key, std::chrono::milliseconds v) const;
};
inline constexpr positive_check positive{};

// 0 turns the rule off; below it is an error.
void off_or_positive(const std::string& key, int v);
void not_negative(const std::string& key, std::chrono::milliseconds v);
// A finite number >= 0.
void zero_or_more(const std::string& key, double v);
// A finite number > 0.
void above_zero(const std::string& key, double v);

// An empty text or list: "must not be empty", or `problem`.
struct not_empty {
  const char* problem = "must not be empty";
  void operator()(const std::string& key, const std::string& v) const;
  template <class T>
  void operator()(const std::string& key, const std::vector<T>& v) const {
    if (v.empty()) {
      throw config_error{key, problem};
    }
  }
};

// At most `limit`, shown as `shown` when given ("1048576 (1 MiB)").
struct at_most {
  std::int64_t limit;
  const char* shown = nullptr;
  void operator()(const std::string& key, std::size_t v) const;
};
struct at_most_duration {
  std::chrono::milliseconds limit;
  void operator()(const std::string& key, std::chrono::milliseconds v) const;
};
struct at_least_duration {
  std::chrono::milliseconds limit;
  void operator()(const std::string& key, std::chrono::milliseconds v) const;
};
// At least `limit` (shown as `shown`), NaN refused.
struct at_least {
  double limit;
  const char* shown;
  void operator()(const std::string& key, double v) const;
};

// Every item of a list passes `Check`, named by its index ("classes[1]").
template <class Check>
struct each {
  Check check;
  template <class T>
  void operator()(const std::string& key, const std::vector<T>& v) const {
    for (std::size_t i = 0; i < v.size(); ++i) {
      check(key + "[" + std::to_string(i) + "]", v[i]);
    }
  }
};
template <class Check>
each(Check) -> each<Check>;

// -- checks of one field ---

void http_url(const std::string& key, const std::string& url);              // routes[].url
void http_or_https_prefix(const std::string& key, const std::string& url);  // oauth2.token_url
void listen_value(const std::string& key, const std::string& listen);       // admin.listen
void not_2xx(const std::string& key, int status);
// A name courier writes as courier.error.class (core/model/error_classes.hpp): another selects
// nothing (a partner's 502 is "http_5xx").
void known_error_class(const std::string& key, const std::string& name);
void header_token(const std::string& key, const std::string& name);
// An endpoint's name travels in record headers, metric labels and admin paths: 1 to 64 of
// A-Z a-z 0-9 . _ -.
void endpoint_name(const std::string& key, const std::string& name);
void burst_size(const std::string& key, double burst);
void records_per_second(const std::string& key, double rate);
// Each positive and none repeated (two tiers with one delay would share one topic).
void tier_delays(const std::string& key, const std::vector<std::chrono::milliseconds>& v);

}  // namespace courier::config_detail
