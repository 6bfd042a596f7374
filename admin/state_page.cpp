#include "admin/state_page.hpp"

#include <nlohmann/json.hpp>

#include "core/time/civil_date.hpp"
#include "admin/json_body.hpp"
#include "admin/partitions_page.hpp"

namespace courier::admin {
namespace {

using nlohmann::json;

const char* breaker_name(int state) {
  switch (state) {
    case 0:
      return "closed";
    case 1:
      return "open";
    case 2:
      return "half_open";
    default:
      return "unknown";
  }
}

// A counter table's rows that /state shows, into its "counters" object.
template <class E>
void state_counters(json& out, const metrics::counter_array<E, std::uint64_t>& values) {
  const auto& rows = metrics::counter_table<E>::rows;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].state_name.empty()) {
      continue;
    }
    if (rows[i].scale == 1) {
      out[std::string{rows[i].state_name}] = values.at_index(i);
    } else {
      out[std::string{rows[i].state_name}] =
          static_cast<double>(values.at_index(i)) * rows[i].scale;
    }
  }
}

// Why the route's records are held for the endpoint's sake, not the records'.
json flags_of(const route_snapshot& r) {
  auto flags = json::array();
  if (r.endpoint_blocked) {
    flags.push_back("ssrf_blocked");
  }
  if (r.endpoint_gone) {
    flags.push_back("gone");
  }
  return flags;
}

json route_counters_json(const route_snapshot& r) {
  json out = json::object();
  state_counters(out, r.consumer);
  state_counters(out, r.deliveries);
  state_counters(out, r.actors);
  return out;
}

// A route with several endpoints: each one's breaker, in flight, quota share and counters.
json endpoints_json(const route_snapshot& r) {
  json out = json::array();
  for (const auto& ep : r.endpoints) {
    json counters = json::object();
    state_counters(counters, ep.deliveries);
    out.push_back({{"name", ep.name},
                   {"breaker",
                    {{"state", breaker_name(ep.breaker_state)},
                     {"trips", ep.actors[actors::route_counter::breaker_trips]}}},
                   {"in_flight", ep.gauges[actors::route_gauge::in_flight]},
                   {"paused", ep.operator_paused ? json("operator") : json(nullptr)},
                   {"rate_limit", {{"requests_per_second", ep.rate_limit}}},
                   {"counters", counters}});
  }
  return out;
}

}  // namespace

std::string render_state(const std::vector<route_snapshot>& routes,
                         std::string_view build_version) {
  json out = {{"version", std::string{build_version}}, {"routes", json::array()}};
  for (const auto& r : routes) {
    out["routes"].push_back({
        {"name", r.name},
        {"topic", r.topic},
        {"breaker",
         {{"state", breaker_name(r.breaker_state)},
          {"since",
           r.breaker_since_ms > 0 ? json(format_rfc3339_ms(r.breaker_since_ms)) : json(nullptr)},
          {"trips", r.actors[actors::route_counter::breaker_trips]}}},
        {"rate_limit",
         {{"requests_per_second", r.rate_limit},
          {"waited_seconds",
           static_cast<double>(r.deliveries[delivery_counter::rate_limited_us]) * 1e-6}}},
        {"assigned", r.assigned},
        {"draining", r.draining},
        {"paused", r.operator_paused ? json("operator") : json(nullptr)},
        {"broker_reachable", r.broker_reachable},
        {"flags", flags_of(r)},
        {"counters", route_counters_json(r)},
        {"dead_lettered_by_class", r.dead_lettered_by_class},
        {"partitions", partitions_json(r)},
        {"auto_redrive", {{"enabled", r.auto_redrive}}},
    });
    auto& route = out["routes"].back();
    if (!r.endpoints.empty()) {
      route["endpoints"] = endpoints_json(r);
    }
    const auto& gauges = metrics::gauge_table<actors::route_gauge>::rows;
    for (std::size_t i = 0; i < gauges.size(); ++i) {
      if (!gauges[i].state_pointer.empty()) {
        route[json::json_pointer{std::string{gauges[i].state_pointer}}] = r.gauges.at_index(i);
      }
    }
  }
  return json_body(out);
}

}  // namespace courier::admin
