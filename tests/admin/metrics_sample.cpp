// Prints /metrics as the admin listener renders it, for two routes with busy counters and one
// idle, for `promtool check metrics` (the ctest admin.promtool).
#include <iostream>

#include "actors/route_metrics.hpp"
#include "admin/metrics_page.hpp"

int main() {
  using namespace courier;
  actors::route_metrics busy;
  busy.consumer[consumer_counter::consumed] = 10;
  busy.deliveries[delivery_counter::delivered] = 8;
  busy.deliveries[delivery_counter::dead_lettered] = 1;
  busy.breaker_state = 1;
  busy.gauges[courier::actors::route_gauge::in_flight] = 3;
  busy.assigned = true;
  courier::consumer_core::partition_status p0;
  p0.id = {"brew.shipments.v1", 0};
  p0.assigned = true;
  p0.reasons = {courier::pause_reason::breaker};
  p0.accounting = {10, 8, 0, 1, 0};
  p0.in_flight = 1;
  busy.partitions.publish({p0});
  busy.partitions.publish(
      std::vector<courier::kafka::partition_position>{{"brew.shipments.v1", 0, 5, 12, 7}});
  const actors::route_metrics idle;
  std::cout << admin::render_metrics(
      {admin::snapshot_of("shipments", busy), admin::snapshot_of("in\"voi\\ces", idle)}, "0.1.0");
}
