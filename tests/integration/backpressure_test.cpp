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
        peak = std::max(peak, metrics.in_flight.load());
        return s.receiver->snapshot().ok >= n;
      },
      60s);
  p.stop();
  EXPECT_TRUE(all) << "delivered: " << s.receiver->snapshot().ok << " of " << n;
  return {s.receiver->snapshot().ok, metrics.backpressure_pauses.load(), peak};
}

TEST(Backpressure, ABusyPartitionIsNeverPausedWhileTheRouteHasRoomByDefault) {
  const auto r = deliver_one_partition(300, /*per_partition_bound=*/0);
  EXPECT_EQ(r.ok, 300U);
  EXPECT_EQ(r.backpressure_pauses, 0U);
  EXPECT_GT(r.peak_in_flight, 8) << "one partition uses more than half of the route's bound";
}

// The counter above can fail: with a bound of its own, the same partition is paused.
TEST(Backpressure, APartitionWithABoundOfItsOwnIsPausedAtIt) {
  const auto r = deliver_one_partition(300, /*per_partition_bound=*/4);
  EXPECT_EQ(r.ok, 300U);
  EXPECT_GT(r.backpressure_pauses, 0U);
}

}  // namespace
}  // namespace courier::testing
