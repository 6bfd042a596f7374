// A route's endpoints resolved over its settings, and its routing (config.hpp).

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/config.hpp"
#include "core/config/config_fields.hpp"

namespace courier {

std::vector<route_endpoint> endpoints_of(const route_config& r) {
  if (r.endpoints.empty()) {
    return {route_endpoint{r.name, std::nullopt, r}};
  }
  std::vector<route_endpoint> out;
  route_config base = r;  // its url is empty: validate() refuses one beside endpoints
  base.endpoints.clear();
  for (std::size_t i = 0; i < r.endpoints.size(); ++i) {
    const endpoint_config& e = r.endpoints[i];
    route_endpoint& resolved = out.emplace_back(route_endpoint{e.name, e.filter.value, base});
    config_detail::read_endpoint_settings(
        e.overlay ? *e.overlay : nlohmann::json::object(),
        "routes." + r.name + ".endpoints[" + std::to_string(i) + "]", resolved.settings);
  }
  return out;
}

routing::endpoint_routing routing_of(const route_config& r,
                                     const std::vector<route_endpoint>& endpoints) {
  std::vector<routing::endpoint_rule> rules;
  rules.reserve(endpoints.size());
  for (const auto& e : endpoints) {
    rules.push_back(routing::endpoint_rule{e.name, e.filter});
  }
  return routing::endpoint_routing{std::move(rules), r.endpoint_from.value, r.on_unknown_endpoint};
}

}  // namespace courier
