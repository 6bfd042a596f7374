#include "admin/snapshot.hpp"

#include <atomic>
#include <chrono>

namespace courier::admin {
namespace {

constexpr auto relaxed = std::memory_order_relaxed;

// A table's values (counters or gauges), loaded.
template <class E, class T, std::size_t N>
void load(metrics::enum_array<E, T, N>& to, const metrics::enum_array<E, std::atomic<T>, N>& from) {
  for (std::size_t i = 0; i < to.size(); ++i) {
    to.at_index(i) = from.at_index(i).load(relaxed);
  }
}

}  // namespace

route_snapshot snapshot_of(std::string name, const actors::route_metrics& m) {
  route_snapshot s;
  s.name = std::move(name);
  s.taken_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  load(s.deliveries, m.deliveries);
  load(s.consumer, m.consumer);
  load(s.actors, m.actors);
  s.endpoint_blocked = m.endpoint_blocked.load(relaxed);
  s.endpoint_gone = m.endpoint_gone.load(relaxed);
  s.breaker_state = m.breaker_state.load(relaxed);
  load(s.gauges, m.gauges);
  s.rate_limit = m.rate_limit.load(relaxed);
  s.assigned = m.assigned.load(relaxed);
  s.draining = m.draining.load(relaxed);
  s.operator_paused = m.operator_paused.load(relaxed);
  s.broker_reachable = m.broker_reachable.load(relaxed);
  s.last_poll_steady_ms = m.last_poll_steady_ms.load(relaxed);
  s.breaker_since_ms = m.breaker_since_ms.load(relaxed);
  s.partitions = m.partitions.snapshot();
  return s;
}

void add_endpoint(route_snapshot& route, route_snapshot endpoint) {
  for (std::size_t i = 0; i < route.deliveries.size(); ++i) {
    route.deliveries.at_index(i) += endpoint.deliveries.at_index(i);
  }
  for (std::size_t i = 0; i < route.actors.size(); ++i) {
    route.actors.at_index(i) += endpoint.actors.at_index(i);
  }
  for (std::size_t i = 0; i < route.gauges.size(); ++i) {
    route.gauges.at_index(i) += endpoint.gauges.at_index(i);
  }
  route.endpoint_blocked = route.endpoint_blocked || endpoint.endpoint_blocked;
  route.endpoint_gone = route.endpoint_gone || endpoint.endpoint_gone;
  constexpr int open = 1;
  constexpr int half_open = 2;
  if (endpoint.breaker_state == open ||
      (endpoint.breaker_state == half_open && route.breaker_state != open)) {
    route.breaker_state = endpoint.breaker_state;
    route.breaker_since_ms = endpoint.breaker_since_ms;
  }
  route.rate_limit += endpoint.rate_limit;
  route.endpoints.push_back(std::move(endpoint));
}

router_snapshot snapshot_of(const actors::router_metrics& m) {
  return router_snapshot{m.produced.load(), m.produce_failures.load(), m.records_failing.load(),
                         m.producer_rebuilds.load(), m.produced_by()};
}

}  // namespace courier::admin
