#include "core/config/config_keys.hpp"

#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/config/config_fields.hpp"
#include "core/time/duration.hpp"

namespace courier {
namespace {

using namespace config_detail;  // NOLINT(google-build-using-namespace): the field lists' words

// -- a default as the docs show it ---

std::string shown(const std::string& v) { return v; }
std::string shown(bool v) { return v ? "true" : "false"; }
std::string shown(int v) { return std::to_string(v); }
std::string shown(std::size_t v) { return std::to_string(v); }
std::string shown(std::chrono::milliseconds v) { return format_duration(v); }

std::string shown(double v) {
  if (v == static_cast<double>(static_cast<std::int64_t>(v))) {
    return std::to_string(static_cast<std::int64_t>(v));
  }
  return nlohmann::json(v).dump();
}

template <class Enum, class = std::enable_if_t<std::is_enum_v<Enum>>>
std::string shown(Enum v) {
  return in_quotes(to_string(v));
}

// ["5s", "30s"], [401, 403]: JSON as the docs write it.
template <class T>
std::string shown(const std::vector<T>& v) {
  std::string out;
  for (const auto& item : v) {
    std::string text;
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::chrono::milliseconds>) {
      text = in_quotes(shown(item));
    } else {
      text = shown(item);
    }
    out += (out.empty() ? "" : ", ") + text;
  }
  return "[" + out + "]";
}

// "scheme" takes one name alone.
std::string shown(const std::vector<signing_scheme>& v) {
  return v.size() == 1 ? shown(v.front()) : shown<signing_scheme>(v);
}

std::string shown(const std::map<std::string, std::string>& v) {
  return v.empty() ? "{}" : nlohmann::json(v).dump();
}
std::string shown(const std::vector<static_header>& v) { return v.empty() ? "{}" : "..."; }
std::string shown(const sourced_text& v) { return v.value; }
std::string shown(const secret_or_file& v) { return v.value; }
std::string shown(const secrets_or_file& v) { return shown(v.values); }
// An endpoint's filter and the route's selector have none by default.
std::string shown(const endpoint_filter& /*v*/) { return "none"; }
std::string shown(const endpoint_selection& /*v*/) { return "none"; }

// -- the visitor ---

class key_lister {
 public:
  key_lister(std::string prefix, std::vector<config_key>& out)
      : prefix_(std::move(prefix)), out_(out) {}

  template <class T, class... Options>
  void operator()(std::string_view name, T& member, const Options&... /*options*/) {
    const std::string path = join_key(prefix_, name);
    if constexpr (std::is_same_v<T, std::vector<endpoint_config>>) {
      list_endpoint(path + "[]");
    } else if constexpr (is_section_v<T>) {
      list(path, member);
    } else if constexpr (is_optional<T>::value) {
      typename T::value_type defaults;
      list(path, defaults);
    } else if constexpr (is_section_list<T>::value) {
      typename T::value_type defaults;
      list(path + "[]", defaults);
    } else if constexpr (has_option_v<required, Options...>) {
      out_.push_back(config_key{path, std::nullopt});
    } else {
      out_.push_back(config_key{path, shown(member)});
      if constexpr (std::is_same_v<T, secret_or_file> || std::is_same_v<T, secrets_or_file>) {
        out_.push_back(config_key{file_key_of(path), std::string{}});
      }
    }
  }

  template <class Section>
  void list(const std::string& path, Section& section) {
    key_lister inner{path, out_};
    fields(inner, section);
  }

  // An endpoint's keys: its name and filter, and each of its partner's settings by its top key
  // only (their defaults are its route's; the route's rows list their inner keys).
  void list_endpoint(const std::string& path) {
    endpoint_config defaults;
    out_.push_back(config_key{join_key(path, "name"), std::nullopt});
    out_.push_back(config_key{join_key(path, "filter"), shown(defaults.filter)});
    endpoint_partner partner{*defaults.settings};
    top_keys tops{path, out_};
    fields(tops, partner);
  }

 private:
  // Lists the keys of one section by name, with no default of their own.
  struct top_keys {
    std::string prefix;
    std::vector<config_key>& out;
    template <class T, class... Options>
    void operator()(std::string_view name, T& /*member*/, const Options&... /*options*/) {
      out.push_back(config_key{join_key(prefix, name), std::string{}});
      if constexpr (std::is_same_v<T, secret_or_file> || std::is_same_v<T, secrets_or_file>) {
        out.push_back(config_key{file_key_of(join_key(prefix, name)), std::string{}});
      }
    }
  };

  std::string prefix_;
  std::vector<config_key>& out_;
};

}  // namespace

std::vector<config_key> config_keys() {
  std::vector<config_key> out;
  courier_config defaults;
  key_lister{"", out}.list("", defaults);
  return out;
}

}  // namespace courier
