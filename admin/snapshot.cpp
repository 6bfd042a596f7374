#include "admin/snapshot.hpp"

#include <atomic>

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
  s.breaker_since_ms = m.breaker_since_ms.load(relaxed);
  s.partitions = m.partitions.snapshot();
  return s;
}

router_snapshot snapshot_of(const actors::router_metrics& m) {
  return router_snapshot{m.produced.load(), m.produce_failures.load(), m.records_failing.load(),
                         m.producer_rebuilds.load(), m.produced_by()};
}

}  // namespace courier::admin
