#include "core/config/config.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <system_error>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/config/config_fields.hpp"
#include "core/config/config_key.hpp"
#include "core/time/duration.hpp"

// The reader: JSON to config types by the field lists (config_fields.hpp). It checks keys and
// types (and the sign of a count, which a size_t cannot hold); values are validate()'s.

namespace courier {
namespace {

using namespace config_detail;  // NOLINT(google-build-using-namespace): the field lists' words
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
void check_object(const json& obj, const std::string& path, const std::vector<std::string>& known,
                  std::string_view what = "an object") {
  if (!obj.is_object()) {
    throw wrong_type(path.empty() ? "<root>" : path, what, obj);
  }
  for (const auto& item : obj.items()) {
    if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
      std::string expected;
      for (const auto& k : known) {
        expected += (expected.empty() ? "" : ", ") + k;
      }
      throw config_error{join_key(path, item.key()), "unknown key; expected one of: " + expected};
    }
  }
}

const json* find(const json& obj, std::string_view key) {
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

// -- one JSON value ---

std::string read_string(const json& v, const std::string& key) {
  if (!v.is_string()) {
    throw wrong_type(key, "a string", v);
  }
  return v.get<std::string>();
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

std::size_t read_size(const json& v, const std::string& key, bool zero_refused) {
  const std::int64_t n = read_integer(v, key);
  // Checked here rather than in validate(): a size_t cannot hold the sign.
  if (n < 0 || (n == 0 && zero_refused)) {
    throw config_error{key, std::string{zero_refused ? "must be a positive integer"
                                                     : "must be 0 or a positive integer"} +
                                ", got " + v.dump()};
  }
  return static_cast<std::size_t>(n);
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

// Every value of an enum the file names, in the order errors list them.
std::vector<idempotency_key_form> every(idempotency_key_form /*type*/) {
  return {idempotency_key_form::plain, idempotency_key_form::sf_string};
}
std::vector<ordering_mode> every(ordering_mode /*type*/) {
  return {ordering_mode::none, ordering_mode::key};
}
std::vector<dead_letter_followers> every(dead_letter_followers /*type*/) {
  return {dead_letter_followers::release, dead_letter_followers::park};
}
std::vector<routing::unknown_endpoint_action> every(routing::unknown_endpoint_action /*type*/) {
  return {routing::unknown_endpoint_action::dead_letter, routing::unknown_endpoint_action::skip};
}

// One of an enum's names, as to_string spells them; an error lists them all.
template <typename Enum>
Enum read_enum_name(const std::string& name, const std::string& key) {
  std::string expected;
  for (const auto v : every(Enum{})) {
    if (name == to_string(v)) {
      return v;
    }
    expected += (expected.empty() ? "" : " or ") + in_quotes(std::string{to_string(v)});
  }
  throw config_error{key, "expected " + expected + ", got " + in_quotes(name)};
}

// A value that may be a secret: "text", {"file": PATH} (the file read as every secret file is)
// or {"env": NAME} (the variable must be set and not empty). `source` says which ("inline",
// "file PATH", "env NAME"). Errors name the key, never a value.
void read_sourced(const json& v, const std::string& key, sourced_text& out) {
  if (v.is_string()) {
    out.value = v.get<std::string>();
    out.source = "inline";
    return;
  }
  if (!v.is_object()) {
    throw wrong_type(key, "a string, {\"file\": PATH} or {\"env\": NAME}", v);
  }
  constexpr const char* file_name = "file";
  constexpr const char* env_name = "env";
  check_object(v, key, {file_name, env_name});
  const json* file = find(v, file_name);
  const json* env = find(v, env_name);
  if ((file == nullptr) == (env == nullptr)) {
    throw config_error{key, "set exactly one of file and env"};
  }
  if (file != nullptr) {
    const auto path = read_string(*file, join_key(key, file_name));
    out.value = read_secret_file(path, join_key(key, file_name));
    out.source = "file " + path;
    return;
  }
  const auto var = read_string(*env, join_key(key, env_name));
  const char* value =
      var.empty()
          ? nullptr
          : std::getenv(var.c_str());  // NOLINT(concurrency-mt-unsafe): start-up, one thread
  if (value == nullptr || *value == '\0') {
    throw config_error{join_key(key, env_name),
                       "environment variable " + in_quotes(var) + " is not set or empty"};
  }
  out.value = value;
  out.source = "env " + var;
}

// -- a member of each type the field lists use ---

void read_into(const json& v, const std::string& key, std::string& out) {
  out = read_string(v, key);
}

// A filter or a selector is read by core/routing, whose errors name where in it they are.
template <class Spec>
Spec read_spec(const json& v, const std::string& key) {
  try {
    return Spec::parse(v);
  } catch (const routing::spec_error& e) {
    throw config_error{e.path().empty() ? key : join_key(key, e.path()), e.problem()};
  }
}
void read_into(const json& v, const std::string& key, endpoint_filter& out) {
  out.value = read_spec<routing::record_filter>(v, key);
}
void read_into(const json& v, const std::string& key, endpoint_selection& out) {
  out.value = read_spec<routing::endpoint_selector>(v, key);
}

void read_into(const json& v, const std::string& key, bool& out) {
  if (!v.is_boolean()) {
    throw wrong_type(key, "true or false", v);
  }
  out = v.get<bool>();
}

void read_into(const json& v, const std::string& key, int& out) {
  const std::int64_t n = read_integer(v, key);
  if (n < std::numeric_limits<int>::min() || n > std::numeric_limits<int>::max()) {
    throw config_error{key, "integer out of range, got " + v.dump()};
  }
  out = static_cast<int>(n);
}

void read_into(const json& v, const std::string& key, double& out) {
  if (!v.is_number()) {
    throw wrong_type(key, "a number", v);
  }
  out = v.get<double>();
}

void read_into(const json& v, const std::string& key, std::chrono::milliseconds& out) {
  out = duration_value(v, key);
}

void read_into(const json& v, const std::string& key, std::vector<std::chrono::milliseconds>& out) {
  if (!v.is_array()) {
    throw wrong_type(key, "an array of durations", v);
  }
  out.clear();
  for (std::size_t i = 0; i < v.size(); ++i) {
    out.push_back(duration_value(v[i], key + "[" + std::to_string(i) + "]"));
  }
}

// An array of HTTP status codes (100..599).
void read_into(const json& v, const std::string& key, std::vector<int>& out) {
  if (!v.is_array()) {
    throw wrong_type(key, "an array of HTTP status codes", v);
  }
  out.clear();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string item = key + "[" + std::to_string(i) + "]";
    const std::int64_t n = read_integer(v[i], item);
    if (n < 100 || n > 599) {
      throw config_error{item, "must be an HTTP status code (100..599), got " + v[i].dump()};
    }
    out.push_back(static_cast<int>(n));
  }
}

void read_into(const json& v, const std::string& key, std::vector<signing_scheme>& out) {
  out = read_schemes(v, key);
}

// librdkafka takes every property as text; numbers and booleans are accepted as written so
// "session.timeout.ms": 45000 just works.
void read_into(const json& v, const std::string& key, std::map<std::string, std::string>& out) {
  if (!v.is_object()) {
    throw wrong_type(key, "an object", v);
  }
  for (const auto& item : v.items()) {
    if (item.value().is_string()) {
      out[item.key()] = item.value().get<std::string>();
    } else if (item.value().is_number() || item.value().is_boolean()) {
      out[item.key()] = item.value().dump();
    } else {
      throw wrong_type(key + "[" + in_quotes(item.key()) + "]", "a string, number or boolean",
                       item.value());
    }
  }
}

void read_into(const json& v, const std::string& key, sourced_text& out) {
  read_sourced(v, key, out);
}

template <class Enum, class = std::enable_if_t<std::is_enum_v<Enum>>>
void read_into(const json& v, const std::string& key, Enum& out) {
  out = read_enum_name<Enum>(read_string(v, key), key);
}

// A list of strings; `item` says what each is ("a header name") in a type error.
std::vector<std::string> read_names(const json& v, const std::string& key,
                                    const std::string& item) {
  if (!v.is_array()) {
    throw wrong_type(key, "an array, each " + item, v);
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      throw wrong_type(key + "[" + std::to_string(i) + "]", item, v[i]);
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

// routes[].headers: a name and a value as read_sourced reads it each.
std::vector<static_header> read_headers(const json& v, const std::string& key,
                                        std::string_view what) {
  if (!v.is_object()) {
    throw wrong_type(key, what, v);
  }
  std::vector<static_header> out;
  for (const auto& item : v.items()) {
    static_header h;
    h.name = item.key();
    sourced_text value{h.value, h.source};
    read_sourced(item.value(), join_key(key, item.key()), value);
    out.push_back(std::move(h));
  }
  return out;
}

// -- the hand-written rules of reading (validate() has the others) ---

// The group waits for a revoke at most its rebalance timeout, max.poll.interval.ms.
void after_read(const kafka_config& k, const std::string& path) {
  std::int64_t rebalance_timeout_ms = 300000;
  if (const auto it = k.properties.find("max.poll.interval.ms"); it != k.properties.end()) {
    char* end = nullptr;
    const auto v = std::strtoll(it->second.c_str(), &end, 10);
    if (end != it->second.c_str() && *end == '\0' && v > 0) {
      rebalance_timeout_ms = v;
    }
  }
  if (k.revoke_drain_timeout.count() >= rebalance_timeout_ms) {
    throw config_error{join_key(path, key_path(k, k.revoke_drain_timeout)),
                       "must be below max.poll.interval.ms (" +
                           std::to_string(rebalance_timeout_ms) +
                           " ms), the time the group waits for a revoke; got " +
                           std::to_string(k.revoke_drain_timeout.count()) + " ms"};
  }
}

// A route authenticates one way.
void after_read(const auth_config& a, const std::string& path) {
  if (!a.bearer_token_file.empty() && a.oauth2) {
    throw config_error{join_key(path, key_path(a, a.oauth2)),
                       "set either " + key_path(a, a.bearer_token_file) + " or " +
                           key_path(a, a.oauth2) + ", not both"};
  }
}

template <class Section>
void after_read(const Section& /*section*/, const std::string& /*path*/) {}

// -- the visitor ---

// The names a section takes: a secret's KEY and KEY_file both.
class key_names {
 public:
  template <class T, class... Options>
  void operator()(std::string_view name, T& /*member*/, const Options&... /*options*/) {
    names_.emplace_back(name);
    if constexpr (std::is_same_v<T, secret_or_file> || std::is_same_v<T, secrets_or_file>) {
      names_.push_back(file_key_of(name));
    }
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
};

template <class... Options>
std::string_view what_of(const Options&... options) {
  if constexpr (has_option_v<described_as, Options...>) {
    return option_of<described_as>(options...).what;
  } else {
    return "an object";
  }
}

template <class Section>
void read_section(const json& v, const std::string& path, Section& x,
                  std::string_view what = "an object");

// Reads each field of one JSON object; a field left out keeps its default.
class json_reader {
 public:
  json_reader(const json& obj, std::string path) : obj_(obj), path_(std::move(path)) {}

  template <class T, class... Options>
  void operator()(std::string_view name, T& member, const Options&... options) {
    const std::string key = join_key(path_, name);
    if constexpr (std::is_same_v<T, secret_or_file> || std::is_same_v<T, secrets_or_file>) {
      read_secret(name, member);
    } else if (const json* v = find(obj_, name)) {
      read_value(*v, key, member, options...);
    } else if constexpr (has_option_v<required, Options...>) {
      throw config_error{key, std::string{"must be set: "} + option_of<required>(options...).why};
    }
  }

 private:
  template <class T, class... Options>
  static void read_value(const json& v, const std::string& key, T& member,
                         const Options&... options) {
    if constexpr (std::is_same_v<T, key_ordering>) {
      if (v.is_string()) {
        member.mode = read_enum_name<ordering_mode>(v.get<std::string>(), key);
      } else {
        read_section(v, key, member, what_of(options...));
      }
    } else if constexpr (is_section_v<T>) {
      read_section(v, key, member, what_of(options...));
    } else if constexpr (is_optional<T>::value) {
      member.emplace();
      read_section(v, key, *member, what_of(options...));
    } else if constexpr (is_section_list<T>::value) {
      if (!v.is_array()) {
        throw wrong_type(key, "an array", v);
      }
      for (std::size_t i = 0; i < v.size(); ++i) {
        read_section(v[i], key + "[" + std::to_string(i) + "]", member.emplace_back());
      }
    } else if constexpr (std::is_same_v<T, std::size_t>) {
      member = read_size(v, key, has_option_v<positive_check, Options...>);
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      std::string item = "a header name";
      if constexpr (has_option_v<described_as, Options...>) {
        item = option_of<described_as>(options...).what;
      }
      member = read_names(v, key, item);
    } else if constexpr (std::is_same_v<T, std::vector<static_header>>) {
      member = read_headers(v, key, what_of(options...));
    } else if constexpr (std::is_same_v<T, secret_file_path>) {
      read_into(v, key, member.path);
      if constexpr (has_option_v<required, Options...>) {
        if (member.path.empty()) {
          throw config_error{key,
                             std::string{"must be set: "} + option_of<required>(options...).why};
        }
      }
      member.content = read_secret_file(member.path, key);
    } else {
      read_into(v, key, member);
    }
  }

  // A secret given inline (`name`) or as a file (`name` + "_file"); both at once is a mistake.
  template <class Secret>
  void read_secret(std::string_view name, Secret& out) {
    const std::string file_name = file_key_of(name);
    const json* inline_value = find(obj_, name);
    const json* file = find(obj_, file_name);
    const std::string file_key = join_key(path_, file_name);
    if (inline_value != nullptr && file != nullptr) {
      throw config_error{file_key,
                         "set either " + std::string{name} + " or " + file_name + ", not both"};
    }
    if constexpr (std::is_same_v<Secret, secret_or_file>) {
      if (file != nullptr) {
        out.value = read_secret_file(read_string(*file, file_key), file_key);
      } else if (inline_value != nullptr) {
        out.value = read_string(*inline_value, join_key(path_, name));
      }
    } else {
      if (file != nullptr) {
        out.values = read_secret_lines(read_string(*file, file_key), file_key);
      } else if (inline_value != nullptr) {
        out.values = read_secret_list(*inline_value, join_key(path_, name));
      }
    }
  }

  const json& obj_;
  std::string path_;
};

template <class Section>
void read_section(const json& v, const std::string& path, Section& x, std::string_view what) {
  key_names known;
  fields(known, x);
  check_object(v, path, known.names(), what);
  json_reader reader{v, path};
  fields(reader, x);
  after_read(x, path);
  if constexpr (std::is_same_v<Section, endpoint_config>) {
    // Read again over the route's settings by endpoints_of(), without its name and filter.
    auto overlay = std::make_shared<json>(v);
    overlay->erase("name");
    overlay->erase("filter");
    x.overlay = std::move(overlay);
  }
}

}  // namespace

courier_config parse_config(const json& doc) {
  courier_config cfg;
  read_section(doc, "", cfg);
  return cfg;
}

namespace config_detail {

void read_endpoint_settings(const json& overlay, const std::string& path, route_config& into) {
  if (overlay.contains("auth")) {
    into.auth = {};  // its own auth replaces the route's, not a part of it
  }
  endpoint_partner partner{into};
  read_section(overlay, path, partner);
}

}  // namespace config_detail

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
