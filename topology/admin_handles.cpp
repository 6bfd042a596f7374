#include "topology/admin_handles.hpp"

namespace courier::topology {

admin::service_handles admin_handles_of(const pipeline& p) {
  admin::service_handles out;
  for (const auto& g : p.routes()) {
    auto& r = out.routes.emplace_back(
        admin::route_handle{g.name, g.topic, g.dlq_topic, g.metrics, g.consumer, {}, {}});
    for (const auto& e : g.endpoints) {
      if (e.metrics != g.metrics) {  // a route with several endpoints
        r.endpoints.push_back({e.name, e.metrics, e.delivery, e.auto_redrive});
      } else {
        r.auto_redrive = e.auto_redrive;  // the route's one endpoint's is the route's
      }
    }
  }
  out.router = p.router_metrics();
  out.actors = p.actors();
  return out;
}

}  // namespace courier::topology
