// Prints /metrics as the admin listener renders it, for two routes with busy counters and one
// idle, for `promtool check metrics` (the ctest topology.admin.promtool).
#include <iostream>

#include "actors/route_metrics.hpp"
#include "topology/admin_routes.hpp"

int main() {
  using namespace courier;
  actors::route_metrics busy;
  busy.fetched = 10;
  busy.delivered = 8;
  busy.dead_lettered = 1;
  busy.breaker_state = 1;
  busy.in_flight = 3;
  busy.assigned = true;
  const actors::route_metrics idle;
  std::cout << topology::render_metrics(
      {topology::snapshot_of("shipments", busy), topology::snapshot_of("in\"voi\\ces", idle)},
      "0.1.0");
}
