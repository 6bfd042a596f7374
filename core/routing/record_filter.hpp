#pragma once

// The filter language of a route's endpoints: a JSON spec ({"header": "x-partner", "equals":
// "acme"}, {"key_prefix": "eu:"}, {"json": "/type", "in": ["a", "b"]}, all/any/not of them)
// parsed once at start-up into a record_filter, and the record_view it is judged against, which
// parses a record's body at most once for all the filters that ask for it.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/record.hpp"

namespace courier::routing {

// A body nested deeper than this is not read as JSON: a hostile record must not cost unbounded
// work (nor a deep recursion) in every filter that looks into it.
inline constexpr std::size_t deepest_body = 64;
// How deep all/any/not may nest in one filter; no sensible filter comes close.
inline constexpr std::size_t deepest_filter = 16;
// How many values one "in" list may hold.
inline constexpr std::size_t longest_in_list = 1024;

// One record as the filters of its route see it. The body is parsed on the first body() call
// and kept, so a record checked against every endpoint's filter is parsed at most once, and not
// at all when header and key conditions decide. Holds a reference: it must not outlive the record.
class record_view {
 public:
  explicit record_view(const record& r) : record_(&r) {}
  record_view(record&&) = delete;  // a view of a temporary would dangle

  [[nodiscard]] const record& get() const { return *record_; }
  // The body as JSON; nullptr when it is not JSON (or nested deeper than deepest_body).
  const nlohmann::json* body();
  // Whether body() was asked for, i.e. whether the body was (tried to be) parsed.
  [[nodiscard]] bool body_parsed() const { return body_parsed_; }

 private:
  const record* record_;
  bool body_parsed_ = false;
  std::optional<nlohmann::json> body_;  // empty when the body is not JSON
};

// An RFC 6901 JSON pointer into a record's body ("/type", "/items/0", "" for the whole body),
// checked when the spec is read. Looking a value up never throws: a pointer that does not fit the
// body (a key into an array, an index past its end) finds nothing.
class body_pointer {
 public:
  // Nothing when the text is not a pointer: neither "" nor starting with "/", or a "~" not
  // followed by 0 or 1.
  static std::optional<body_pointer> parse(std::string_view text);

  [[nodiscard]] const nlohmann::json* find(const nlohmann::json& body) const;
  [[nodiscard]] const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::vector<std::string> tokens_;  // unescaped: "~1" is "/", "~0" is "~"
};

// One endpoint's filter. Copyable and cheap to copy (the parsed tree is shared and immutable),
// so an endpoint's config holds it by value; safe to use from several threads at once.
class record_filter {
 public:
  // Throws spec_error (core/routing/spec_error.hpp) naming where in the spec and what is wrong.
  static record_filter parse(const nlohmann::json& spec);

  // Header and key conditions are judged before the body is parsed; a body that is not JSON
  // matches no json condition (not even {"exists": false}).
  bool matches(record_view& r) const;
  // One line for `courier config check`: all(header "t" exists, not(key_prefix "test:")).
  [[nodiscard]] std::string describe() const;
  // Whether some json condition may need the record's body.
  [[nodiscard]] bool needs_body() const;

  struct node;  // the parsed tree, defined in record_filter.cpp

 private:
  explicit record_filter(std::shared_ptr<const node> root) : root_(std::move(root)) {}

  std::shared_ptr<const node> root_;
};

}  // namespace courier::routing
