#include "core/routing/endpoint_routing.hpp"

#include <utility>

#include "core/routing/spec_error.hpp"

namespace courier::routing {

endpoint_routing::endpoint_routing(std::vector<endpoint_rule> rules,
                                   std::optional<endpoint_selector> from,
                                   unknown_endpoint_action on_unknown)
    : rules_(std::move(rules)), from_(std::move(from)), on_unknown_(on_unknown) {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const auto& rule = rules_[i];
    // A filter the selection would ignore is a mistake in the config, not a no-op.
    if (from_ && rule.filter) {
      throw spec_error{"filter", "an endpoint of a route with endpoint_from takes no filter"};
    }
    const auto [at, added] = index_.emplace(rule.name, i);
    if (!added) {
      throw spec_error{"name", in_quotes(rule.name) + " names two endpoints (" +
                                   std::to_string(at->second) + " and " + std::to_string(i) + ")"};
    }
  }
}

routing_decision endpoint_routing::route(const record& r) const {
  record_view view{r};
  routing_decision decision;
  if (from_) {
    const auto name = from_->name_of(view);
    const auto index = name ? index_of(*name) : std::nullopt;
    if (index) {
      decision.endpoints.push_back(*index);
    } else {
      decision.unknown = name.value_or("");
    }
    return decision;
  }
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    if (!rules_[i].filter || rules_[i].filter->matches(view)) {
      decision.endpoints.push_back(i);
    }
  }
  return decision;
}

std::optional<std::size_t> endpoint_routing::index_of(std::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? std::nullopt : std::optional<std::size_t>{it->second};
}

}  // namespace courier::routing
