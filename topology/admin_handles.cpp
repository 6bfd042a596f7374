#include "topology/admin_handles.hpp"

namespace courier::topology {

admin::service_handles admin_handles_of(const pipeline& p) {
  admin::service_handles out;
  for (const auto& g : p.routes()) {
    out.routes.push_back({g.name, g.topic, g.dlq_topic, g.metrics, g.consumer, g.auto_redrive});
  }
  out.router = p.router_metrics();
  out.actors = p.actors();
  return out;
}

}  // namespace courier::topology
