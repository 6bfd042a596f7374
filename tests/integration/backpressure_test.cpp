// Backpressure without pause churn (DESIGN.md section 4): while the route has room, a busy
// partition is never paused; it may use the route's whole concurrency.

#include <algorithm>

#include <gtest/gtest.h>

#include "tests/integration/stand.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

struct run_result {
  std::uint64_t ok = 0;
  std::uint64_t backpressure_pauses = 0;
  std::int64_t peak_in_flight = 0;
};

// One partition, `n` records, a receiver that answers after 20 ms, the route's bound 16.
run_result deliver_one_partition(std::size_t n, std::size_t per_partition_bound) {
  mock::server_settings ws;
  ws.initial.latency = 20ms;
  stand s{1, ws};
  s.route().max_in_flight = 16;
  s.route().max_in_flight_per_partition = per_partition_bound;
  s.seed(n);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& metrics = *p.routes().front().metrics;
  std::int64_t peak = 0;
  const bool all = wait_until(
      [&] {
        peak = std::max(peak, metrics.gauges[actors::route_gauge::in_flight].load());
        return s.receiver->snapshot().ok >= n;
      },
      60s);
  p.stop();
  EXPECT_TRUE(all) << "delivered: " << s.receiver->snapshot().ok << " of " << n;
  return {s.receiver->snapshot().ok, metrics.consumer[consumer_counter::backpressure_pauses].load(),
          peak};
}

TEST(Backpressure, ABusyPartitionIsNeverPausedWhileTheRouteHasRoomByDefault) {
  const auto r = deliver_one_partition(300, /*per_partition_bound=*/0);
  EXPECT_EQ(r.ok, 300U);
  EXPECT_EQ(r.backpressure_pauses, 0U);
  EXPECT_GT(r.peak_in_flight, 8) << "one partition uses more than half of the route's bound";
}

// With a bound of its own, the partition keeps at most 4 with the delivery pool and holds the
// rest of what it fetched, instead of a pause (and a refetch) every few outcomes (19 pauses
// here when it paused at its bound). It pauses when the hold is large: the route's 16 before
// its first outcomes tell how fast it delivers, then two seconds of that (4 per 50 ms: 160).
TEST(Backpressure, APartitionAtABoundOfItsOwnHoldsWhatItFetchedInsteadOfPausing) {
  const auto r = deliver_one_partition(300, /*per_partition_bound=*/4);
  EXPECT_EQ(r.ok, 300U);
  EXPECT_LE(r.peak_in_flight, 4) << "its bound holds";
  EXPECT_LE(r.backpressure_pauses, 3U);
}

}  // namespace
}  // namespace courier::testing

namespace courier::testing {
namespace {

// adaptive_concurrency on the stand: a receiver answering 503 to a fifth of the attempts cuts
// the limit below the route's bound, and every record is still delivered once and committed.
TEST(Backpressure, AnAdaptiveLimitBacksOffOnOverloadAnswersAndLosesNothing) {
  constexpr std::size_t n = 600;
  mock::server_settings ws;
  ws.initial.fail_rate_503 = 0.2;
  ws.initial.latency = 5ms;
  stand s{2, ws};
  s.route().max_in_flight = 64;
  s.route().adaptive_concurrency = true;
  s.route().retry.initial = 10ms;
  s.route().retry.max = 50ms;
  s.route().breaker.trip_after = 1000;  // the 503s are load, not an outage
  s.seed(n);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& m = *p.routes().front().metrics;
  std::int64_t lowest = 64;
  std::int64_t highest = 0;
  const bool all = wait_until(
      [&] {
        const auto limit = m.gauges[actors::route_gauge::concurrency_limit].load();
        if (limit > 0) {
          lowest = std::min(lowest, limit);
          highest = std::max(highest, limit);
        }
        return s.receiver->snapshot().ok >= n;
      },
      90s);
  ASSERT_TRUE(s.wait_group_settled(m));
  p.stop();
  ASSERT_TRUE(all) << "delivered: " << s.receiver->snapshot().ok << " of " << n;
  EXPECT_GT(highest, 0) << "the route published its limit";
  EXPECT_LT(lowest, 16) << "the 503s cut the limit below its start";
  EXPECT_LE(highest, 64) << "never above max_in_flight";
  EXPECT_EQ(s.receiver->snapshot().duplicates, 0U);
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), 0U);
  EXPECT_EQ(s.committed_total(), static_cast<std::int64_t>(n));
}

}  // namespace
}  // namespace courier::testing
