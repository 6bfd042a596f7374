// Prints an exposition with every kind of family courier writes, for `promtool check metrics`
// (the ctest core.metrics.promtool): the format is checked by Prometheus' own tool, not by us.
#include <iostream>

#include "core/metrics/exposition.hpp"

int main() {
  using namespace courier::metrics;
  exposition e;
  e.family("courier_deliveries_total", "Deliveries by route and outcome.", family_type::counter);
  e.sample("courier_deliveries_total", {{"route", "ship\"ments\\"}, {"outcome", "delivered"}},
           std::uint64_t{3});
  e.family("courier_breaker_state", "Breaker state: 0 closed, 1 open, 2 half-open.",
           family_type::gauge);
  e.sample("courier_breaker_state", {{"route", "shipments"}}, 0.0);
  e.family("courier_delivery_duration_seconds", "Request duration of successful deliveries.",
           family_type::histogram);
  histogram h{latency_buckets(5.0)};
  h.observe(0.02);
  h.observe(6.0);
  h.render(e, "courier_delivery_duration_seconds", {{"route", "shipments"}});
  std::cout << e.text();
}
