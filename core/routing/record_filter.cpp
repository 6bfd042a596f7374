#include "core/routing/record_filter.hpp"

#include <algorithm>
#include <array>
#include <variant>

#include "core/routing/spec_error.hpp"

// A filter is a small immutable tree: header, key and json conditions at the leaves, all/any/not
// above them. Each node knows whether it may need the body, so that all/any judge the conditions
// that need none first and the body is parsed only when they leave the answer open.

namespace courier::routing {
namespace {

using nlohmann::json;

// -- what a parsed filter holds ---

struct presence {
  bool present = true;
};
struct text_equals {
  std::string value;
};
struct text_in {
  std::vector<std::string> values;
};
// clang-tidy counts nlohmann::json's move assignment (which takes its argument by value) as
// possibly throwing in the implicit noexcept moves; moving a json throws nothing.
struct value_equals {  // NOLINT(bugprone-exception-escape)
  json value;
};
struct value_in {
  std::vector<json> values;
};

struct header_condition {
  std::string name;
  std::variant<text_equals, text_in, presence> test;
};
struct key_prefix_condition {
  std::string prefix;
};
struct json_condition {
  body_pointer pointer;
  std::variant<value_equals, value_in, presence> test;
};
struct all_of {
  std::vector<record_filter::node> children;
};
struct any_of {
  std::vector<record_filter::node> children;
};
struct negation {
  std::unique_ptr<const record_filter::node> child;
};

}  // namespace

struct record_filter::node {
  std::variant<header_condition, key_prefix_condition, json_condition, all_of, any_of, negation>
      test;
  bool needs_body = false;
};

namespace {

using node = record_filter::node;

// -- reading a record's body ---

// Whether arrays and objects nest deeper than `limit` in the text, counting brackets outside
// strings: linear and without recursion, so a hostile body is refused before it is parsed. For a
// text that is not JSON the count may be off, but then the parse refuses it anyway.
bool nests_deeper_than(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) {
        return true;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

// -- judging a record ---

bool holds(const node& n, record_view& r);

// Whether a header's value (nothing: the record lacks the header) passes a test.
struct header_value_check {
  std::optional<std::string_view> value;

  bool operator()(const text_equals& t) const { return value && *value == t.value; }
  bool operator()(const text_in& t) const {
    return value && std::find(t.values.begin(), t.values.end(), *value) != t.values.end();
  }
  bool operator()(const presence& t) const { return value.has_value() == t.present; }
};

// Whether the value a pointer found in the body (nullptr: none) passes a test.
struct body_value_check {
  const json* value = nullptr;

  bool operator()(const value_equals& t) const { return value != nullptr && *value == t.value; }
  bool operator()(const value_in& t) const {
    return value != nullptr &&
           std::find(t.values.begin(), t.values.end(), *value) != t.values.end();
  }
  bool operator()(const presence& t) const { return (value != nullptr) == t.present; }
};

// Whether some child comes out as `outcome`. The children that need no body go first: when one of
// them decides, the body is not parsed.
bool some_child_is(const std::vector<node>& children, bool outcome, record_view& r) {
  for (const bool with_body : {false, true}) {
    for (const auto& child : children) {
      if (child.needs_body == with_body && holds(child, r) == outcome) {
        return true;
      }
    }
  }
  return false;
}

class evaluation {
 public:
  explicit evaluation(record_view& r) : record_(&r) {}

  bool operator()(const header_condition& c) const {
    return std::visit(header_value_check{find_header(record_->get().headers, c.name)}, c.test);
  }
  bool operator()(const key_prefix_condition& c) const {
    const auto& key = record_->get().key;
    return key && std::string_view{*key}.substr(0, c.prefix.size()) == c.prefix;
  }
  bool operator()(const json_condition& c) const {
    const json* body = record_->body();
    if (body == nullptr) {
      return false;  // a body that is not JSON matches no json condition, "exists": false neither
    }
    return std::visit(body_value_check{c.pointer.find(*body)}, c.test);
  }
  bool operator()(const all_of& c) const { return !some_child_is(c.children, false, *record_); }
  bool operator()(const any_of& c) const { return some_child_is(c.children, true, *record_); }
  bool operator()(const negation& c) const { return !holds(*c.child, *record_); }

 private:
  record_view* record_;
};

bool holds(const node& n, record_view& r) { return std::visit(evaluation{r}, n.test); }

// -- describing a filter ---

// Lists longer than this are cut in describe(): it is one line of `courier config check`.
constexpr std::size_t longest_described_list = 10;

std::string json_text(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

template <class Value, class Text>
std::string list_text(const std::vector<Value>& values, const Text& text) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size() && i < longest_described_list; ++i) {
    out += (i == 0 ? "" : ",") + text(values[i]);
  }
  if (values.size() > longest_described_list) {
    out += ",... " + std::to_string(values.size()) + " values in all";
  }
  return out + "]";
}

std::string described(const node& n);

std::string described(const std::vector<node>& children) {
  std::string out;
  for (const auto& child : children) {
    out += (out.empty() ? "" : ", ") + described(child);
  }
  return out;
}

std::string pointer_text(const body_pointer& pointer) {
  return pointer.text().empty() ? "\"\"" : pointer.text();
}

struct description {
  std::string operator()(const text_equals& t) const { return "equals " + in_quotes(t.value); }
  std::string operator()(const text_in& t) const {
    return "in " + list_text(t.values, [](const std::string& v) { return in_quotes(v); });
  }
  std::string operator()(const value_equals& t) const { return "equals " + json_text(t.value); }
  std::string operator()(const value_in& t) const {
    return "in " + list_text(t.values, [](const json& v) { return json_text(v); });
  }
  std::string operator()(const presence& t) const { return t.present ? "exists" : "absent"; }

  std::string operator()(const header_condition& c) const {
    return "header " + in_quotes(c.name) + " " + std::visit(description{}, c.test);
  }
  std::string operator()(const key_prefix_condition& c) const {
    return "key_prefix " + in_quotes(c.prefix);
  }
  std::string operator()(const json_condition& c) const {
    return "json " + pointer_text(c.pointer) + " " + std::visit(description{}, c.test);
  }
  std::string operator()(const all_of& c) const { return "all(" + described(c.children) + ")"; }
  std::string operator()(const any_of& c) const { return "any(" + described(c.children) + ")"; }
  std::string operator()(const negation& c) const { return "not(" + described(*c.child) + ")"; }
};

std::string described(const node& n) { return std::visit(description{}, n.test); }

// -- reading a spec ---

enum class filter_kind { header, key_prefix, body, all, any, negation };
enum class comparison { equals, in, exists };

struct kind_key {
  std::string_view key;
  filter_kind kind;
};
constexpr std::array<kind_key, 6> kind_keys{{{"header", filter_kind::header},
                                             {"key_prefix", filter_kind::key_prefix},
                                             {"json", filter_kind::body},
                                             {"all", filter_kind::all},
                                             {"any", filter_kind::any},
                                             {"not", filter_kind::negation}}};

struct comparison_key {
  std::string_view key;
  comparison what;
};
constexpr std::array<comparison_key, 3> comparison_keys{
    {{"equals", comparison::equals}, {"in", comparison::in}, {"exists", comparison::exists}}};

spec_error wrong_type(const std::string& path, std::string_view expected, const json& got) {
  return spec_error{path, "expected " + std::string{expected} + ", got " + got.type_name()};
}

std::string item_path(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

std::string read_text(const json& v, const std::string& path, std::string_view expected) {
  if (!v.is_string()) {
    throw wrong_type(path, expected, v);
  }
  return v.get<std::string>();
}

// The one kind key of a filter ("header" ... "not"), after checking that every key is known.
const kind_key& kind_of(const json& spec, const std::string& path) {
  if (!spec.is_object()) {
    throw wrong_type(path, "a filter object", spec);
  }
  const kind_key* found = nullptr;
  for (const auto& item : spec.items()) {
    const auto& key = item.key();
    const auto kind = std::find_if(kind_keys.begin(), kind_keys.end(),
                                   [&](const kind_key& k) { return k.key == key; });
    const bool is_comparison = std::any_of(comparison_keys.begin(), comparison_keys.end(),
                                           [&](const comparison_key& c) { return c.key == key; });
    if (kind == kind_keys.end() && !is_comparison) {
      throw spec_error{join_spec_path(path, key),
                       "unknown key; expected one of: header, key_prefix, json, all, any, not, "
                       "equals, in, exists"};
    }
    if (kind != kind_keys.end() && found != nullptr) {
      throw spec_error{join_spec_path(path, key), "cannot be combined with " +
                                                      in_quotes(found->key) +
                                                      " in one filter; combine filters with all"};
    }
    if (kind != kind_keys.end()) {
      found = &*kind;
    }
  }
  if (found == nullptr) {
    throw spec_error{path,
                     "names no condition; expected one of: header, key_prefix, json, all, "
                     "any, not"};
  }
  return *found;
}

// The one comparison of a header or json condition.
const comparison_key& comparison_of(const json& spec, const std::string& path) {
  const comparison_key* found = nullptr;
  for (const auto& c : comparison_keys) {
    if (!spec.contains(c.key)) {
      continue;
    }
    if (found != nullptr) {
      throw spec_error{join_spec_path(path, c.key),
                       "cannot be combined with " + in_quotes(found->key) +
                           "; a condition takes exactly one of equals, in, exists"};
    }
    found = &c;
  }
  if (found == nullptr) {
    throw spec_error{path, "needs one of equals, in, exists"};
  }
  return *found;
}

void check_no_comparison(const json& spec, const std::string& path, std::string_view kind) {
  for (const auto& c : comparison_keys) {
    if (spec.contains(c.key)) {
      throw spec_error{join_spec_path(path, c.key),
                       "applies to a header or json condition, not to " + std::string{kind}};
    }
  }
}

// An "in" list: a non-empty array of at most longest_in_list values.
const json& in_list(const json& v, const std::string& path) {
  if (!v.is_array()) {
    throw wrong_type(path, "a non-empty array", v);
  }
  if (v.empty()) {
    throw spec_error{path, "must hold at least one value"};
  }
  if (v.size() > longest_in_list) {
    throw spec_error{path, "holds " + std::to_string(v.size()) + " values; at most " +
                               std::to_string(longest_in_list) + " are allowed"};
  }
  return v;
}

bool read_presence(const json& v, const std::string& path) {
  if (!v.is_boolean()) {
    throw wrong_type(path, "true or false", v);
  }
  return v.get<bool>();
}

header_condition parse_header_condition(const json& spec, const std::string& path) {
  header_condition c;
  const std::string name_path = join_spec_path(path, "header");
  c.name = read_text(spec.at("header"), name_path, "a header name (a string)");
  if (c.name.empty()) {
    throw spec_error{name_path, "must name a header, not be empty"};
  }
  const auto& how = comparison_of(spec, path);
  const std::string at = join_spec_path(path, how.key);
  const json& operand = spec.at(std::string{how.key});
  switch (how.what) {
    case comparison::equals:
      c.test = text_equals{read_text(operand, at, "a string (a header's value is text)")};
      break;
    case comparison::in: {
      text_in t;
      const json& list = in_list(operand, at);
      for (std::size_t i = 0; i < list.size(); ++i) {
        t.values.push_back(read_text(list[i], item_path(at, i), "a string"));
      }
      c.test = std::move(t);
      break;
    }
    case comparison::exists:
      c.test = presence{read_presence(operand, at)};
      break;
  }
  return c;
}

json_condition parse_json_condition(const json& spec, const std::string& path) {
  json_condition c;
  const std::string pointer_path = join_spec_path(path, "json");
  const auto text =
      read_text(spec.at("json"), pointer_path, "a JSON pointer (a string such as \"/type\")");
  auto pointer = body_pointer::parse(text);
  if (!pointer) {
    throw spec_error{pointer_path, in_quotes(text) +
                                       " is not a JSON pointer: it must be \"\" or start with "
                                       "\"/\", and a \"~\" in it must be followed by 0 or 1"};
  }
  c.pointer = std::move(*pointer);
  const auto& how = comparison_of(spec, path);
  const std::string at = join_spec_path(path, how.key);
  const json& operand = spec.at(std::string{how.key});
  switch (how.what) {
    case comparison::equals:
      c.test = value_equals{operand};
      break;
    case comparison::in: {
      const json& list = in_list(operand, at);
      c.test = value_in{std::vector<json>(list.begin(), list.end())};
      break;
    }
    case comparison::exists:
      c.test = presence{read_presence(operand, at)};
      break;
  }
  return c;
}

node parse_node(const json& spec, const std::string& path, std::size_t depth);

std::vector<node> parse_children(const json& list, const std::string& path, std::size_t depth) {
  if (!list.is_array()) {
    throw wrong_type(path, "a non-empty array of filters", list);
  }
  if (list.empty()) {
    throw spec_error{path, "must hold at least one filter"};
  }
  std::vector<node> children;
  children.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    children.push_back(parse_node(list[i], item_path(path, i), depth));
  }
  return children;
}

bool some_needs_body(const std::vector<node>& children) {
  return std::any_of(children.begin(), children.end(), [](const node& n) { return n.needs_body; });
}

// all, any or not, `depth` levels of them above it.
node parse_combination(const json& spec, const std::string& path, const kind_key& kind,
                       std::size_t depth) {
  check_no_comparison(spec, path, kind.key);
  if (depth >= deepest_filter) {
    throw spec_error{
        path, "nests all, any and not deeper than " + std::to_string(deepest_filter) + " levels"};
  }
  const std::string at = join_spec_path(path, kind.key);
  node n;
  if (kind.kind == filter_kind::negation) {
    auto child = std::make_unique<node>(parse_node(spec.at("not"), at, depth + 1));
    n.needs_body = child->needs_body;
    n.test = negation{std::move(child)};
    return n;
  }
  auto children = parse_children(spec.at(std::string{kind.key}), at, depth + 1);
  n.needs_body = some_needs_body(children);
  if (kind.kind == filter_kind::all) {
    n.test = all_of{std::move(children)};
  } else {
    n.test = any_of{std::move(children)};
  }
  return n;
}

// One filter at `path` in the spec, inside `depth` levels of all/any/not.
node parse_node(const json& spec, const std::string& path, std::size_t depth) {
  const kind_key& kind = kind_of(spec, path);
  node n;
  switch (kind.kind) {
    case filter_kind::header:
      n.test = parse_header_condition(spec, path);
      return n;
    case filter_kind::key_prefix:
      check_no_comparison(spec, path, "key_prefix");
      n.test = key_prefix_condition{
          read_text(spec.at("key_prefix"), join_spec_path(path, "key_prefix"), "a string")};
      return n;
    case filter_kind::body:
      n.test = parse_json_condition(spec, path);
      n.needs_body = true;
      return n;
    case filter_kind::all:
    case filter_kind::any:
    case filter_kind::negation:
      return parse_combination(spec, path, kind, depth);
  }
  return n;
}

}  // namespace

// -- record_view ---

const json* record_view::body() {
  if (!body_parsed_) {
    body_parsed_ = true;
    const std::string_view text = record_->value.view();
    if (!nests_deeper_than(text, deepest_body)) {
      json parsed = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
      if (!parsed.is_discarded()) {
        body_ = std::move(parsed);
      }
    }
  }
  return body_ ? &*body_ : nullptr;
}

// -- record_filter ---

record_filter record_filter::parse(const json& spec) {
  return record_filter{std::make_shared<const node>(parse_node(spec, "", 0))};
}

bool record_filter::matches(record_view& r) const { return holds(*root_, r); }

std::string record_filter::describe() const { return described(*root_); }

bool record_filter::needs_body() const { return root_->needs_body; }

}  // namespace courier::routing
