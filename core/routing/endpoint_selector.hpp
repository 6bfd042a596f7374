#pragma once

// A route's endpoint_from: where in a record the name of the one endpoint it goes to is read,
// {"header": "x-partner"}, {"key_prefix_until": ":"} or {"json": "/partner"}.

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "core/routing/record_filter.hpp"

namespace courier::routing {

// Names one endpoint from a record. Copyable; safe to use from several threads at once.
class endpoint_selector {
 public:
  // Throws spec_error (core/routing/spec_error.hpp) naming where in the spec and what is wrong.
  static endpoint_selector parse(const nlohmann::json& spec);

  // The name the record carries, or nothing when it carries none: the header is absent; the key
  // is absent or lacks the separator; the body is not JSON or the pointed value is no string.
  std::optional<std::string> name_of(record_view& r) const;
  // One line for `courier config check`: header "x-partner", key prefix until ":", json /partner.
  [[nodiscard]] std::string describe() const;

 private:
  struct from_header {
    std::string name;
  };
  struct from_key_prefix {
    std::string separator;  // never empty
  };
  struct from_body {
    body_pointer pointer;
  };
  using source = std::variant<from_header, from_key_prefix, from_body>;

  explicit endpoint_selector(source from) : from_(std::move(from)) {}

  source from_;
};

}  // namespace courier::routing
