#pragma once

// Which of a route's endpoints a record goes to: every endpoint whose filter matches it (and every
// endpoint without a filter), or, when the route has an endpoint_from, the one endpoint the record
// names.

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/record.hpp"
#include "core/routing/endpoint_selector.hpp"
#include "core/routing/record_filter.hpp"

namespace courier::routing {

// What becomes of a record whose endpoint_from names no endpoint of the route.
enum class unknown_endpoint_action { dead_letter, skip };

// One endpoint of a route as routing sees it.
struct endpoint_rule {
  std::string name;
  std::optional<record_filter> filter;  // none: the endpoint gets every record (fan-out)
};

// Where one record goes.
struct routing_decision {
  std::vector<std::size_t> endpoints;  // indices into the rules, ascending; empty: goes to none
  std::optional<std::string> unknown;  // selection named no known endpoint: the name read ("" when
                                       // none); the caller acts on it per on_unknown()
};

// A route's endpoints and how a record picks among them. Immutable after construction; safe to
// use from several threads at once.
class endpoint_routing {
 public:
  // Selection when `from` is set, fan-out by the rules' filters otherwise. Throws spec_error
  // (core/routing/spec_error.hpp) when two rules have the same name, and when a rule has a filter
  // while `from` is set (path "filter").
  endpoint_routing(std::vector<endpoint_rule> rules, std::optional<endpoint_selector> from,
                   unknown_endpoint_action on_unknown);

  // Parses the record's body at most once, and not at all when no filter or selector needs it.
  [[nodiscard]] routing_decision route(const record& r) const;

  [[nodiscard]] const std::vector<endpoint_rule>& rules() const { return rules_; }
  // Whether a record goes to every endpoint that matches (no endpoint_from).
  [[nodiscard]] bool fans_out() const { return !from_.has_value(); }
  [[nodiscard]] unknown_endpoint_action on_unknown() const { return on_unknown_; }
  [[nodiscard]] std::optional<std::size_t> index_of(std::string_view name) const;

 private:
  std::vector<endpoint_rule> rules_;
  std::optional<endpoint_selector> from_;
  unknown_endpoint_action on_unknown_;
  std::map<std::string, std::size_t, std::less<>> index_;  // rule name -> its index
};

}  // namespace courier::routing
