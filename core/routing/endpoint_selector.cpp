#include "core/routing/endpoint_selector.hpp"

#include <string_view>
#include <utility>

#include "core/routing/spec_error.hpp"

namespace courier::routing {
namespace {

using nlohmann::json;

// A visitor made of lambdas, one for each kind of selector: a kind without one does not compile.
template <class... Case>
struct overloaded : Case... {
  using Case::operator()...;
};
template <class... Case>
overloaded(Case...) -> overloaded<Case...>;

constexpr const char* selector_forms =
    "one of {\"header\": NAME}, {\"key_prefix_until\": SEPARATOR}, {\"json\": POINTER}";

std::string read_text(const json& v, const std::string& path, std::string_view expected) {
  if (!v.is_string()) {
    throw spec_error{path, "expected " + std::string{expected} + ", got " + v.type_name()};
  }
  return v.get<std::string>();
}

}  // namespace

endpoint_selector endpoint_selector::parse(const json& spec) {
  if (!spec.is_object() || spec.size() != 1) {
    throw spec_error{"", std::string{"expected "} + selector_forms};
  }
  const auto only = spec.begin();
  const std::string& key = only.key();
  const json& value = only.value();
  if (key == "header") {
    auto name = read_text(value, key, "a header name (a string)");
    if (name.empty()) {
      throw spec_error{key, "must name a header, not be empty"};
    }
    return endpoint_selector{from_header{std::move(name)}};
  }
  if (key == "key_prefix_until") {
    auto separator = read_text(value, key, "a separator (a string such as \":\")");
    if (separator.empty()) {
      throw spec_error{key, "must not be empty: the name is the key's text before it"};
    }
    return endpoint_selector{from_key_prefix{std::move(separator)}};
  }
  if (key == "json") {
    const auto text = read_text(value, key, "a JSON pointer (a string such as \"/partner\")");
    auto pointer = body_pointer::parse(text);
    if (!pointer) {
      throw spec_error{key, in_quotes(text) +
                                " is not a JSON pointer: it must be \"\" or start with \"/\", and "
                                "a \"~\" in it must be followed by 0 or 1"};
    }
    return endpoint_selector{from_body{std::move(*pointer)}};
  }
  throw spec_error{key, std::string{"unknown key; expected "} + selector_forms};
}

std::optional<std::string> endpoint_selector::name_of(record_view& r) const {
  return std::visit(overloaded{[&](const from_header& h) -> std::optional<std::string> {
                                 const auto value = find_header(r.get().headers, h.name);
                                 return value ? std::optional<std::string>{*value} : std::nullopt;
                               },
                               [&](const from_key_prefix& k) -> std::optional<std::string> {
                                 const auto& key = r.get().key;
                                 const auto end = key ? key->find(k.separator) : std::string::npos;
                                 return end == std::string::npos
                                            ? std::nullopt
                                            : std::optional<std::string>{key->substr(0, end)};
                               },
                               [&](const from_body& b) -> std::optional<std::string> {
                                 const json* body = r.body();
                                 const json* value =
                                     body != nullptr ? b.pointer.find(*body) : nullptr;
                                 return value != nullptr && value->is_string()
                                            ? std::optional<std::string>{value->get<std::string>()}
                                            : std::nullopt;
                               }},
                    from_);
}

std::string endpoint_selector::describe() const {
  return std::visit(overloaded{[](const from_header& h) { return "header " + in_quotes(h.name); },
                               [](const from_key_prefix& k) {
                                 return "key prefix until " + in_quotes(k.separator);
                               },
                               [](const from_body& b) {
                                 const auto& text = b.pointer.text();
                                 return "json " + (text.empty() ? std::string{"\"\""} : text);
                               }},
                    from_);
}

}  // namespace courier::routing
