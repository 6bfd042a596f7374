// A route that starves for records its partition holds says so (core/flow/fetch_starvation):
// librdkafka 2.0.2 stops fetching once its queue holds queued.max.messages.kbytes, and looks
// again only a second later, so a prefetch far smaller than a second of deliveries leaves the
// route waiting with records in Kafka. Here the prefetch is 1 KiB (a few shipments), and a fetch
// brings no more than 2 KiB.

#include <gtest/gtest.h>

#include "tests/integration/stand.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

struct starvation_run {
  std::uint64_t delivered = 0;
  std::uint64_t starved = 0;  // courier_consumer_fetch_starved_total
};

// The source partition's lag in the latest statistics; -1 while not known.
std::int64_t source_lag(const actors::route_metrics& m, const std::string& topic) {
  for (const auto& p : m.partitions.snapshot()) {
    if (p.id.topic == topic && p.assigned) {
      return p.lag;
    }
  }
  return -1;
}

// `n` records on one partition; statistics (and so the starvation check) every 500 ms, and
// commits every 200 ms so the statistics know the lag early. Waits until `done(delivered,
// starved intervals, lag)` holds.
template <class Done>
starvation_run run(std::size_t n, std::map<std::string, std::string> extra, Done done) {
  stand s{1};
  s.route().max_in_flight = 4;
  s.cfg.kafka.properties["statistics.interval.ms"] = "500";
  s.cfg.kafka.properties["auto.commit.interval.ms"] = "200";
  for (auto& [k, v] : extra) {
    s.cfg.kafka.properties[k] = v;
  }
  // Small producer batches: a fetch returns at least one whole batch, whatever its bound.
  constexpr std::size_t batch = 4;
  for (std::size_t seeded = 0; seeded < n; seeded += batch) {
    s.seed(batch);
  }
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& metrics = *p.routes().front().metrics;
  const bool reached = wait_until(
      [&] {
        return done(s.receiver->snapshot().ok,
                    metrics.actors[actors::route_counter::fetch_starved].load(),
                    source_lag(metrics, s.topic));
      },
      60s);
  EXPECT_TRUE(reached) << "delivered " << s.receiver->snapshot().ok << " of " << n
                       << ", starved intervals "
                       << metrics.actors[actors::route_counter::fetch_starved].load();
  starvation_run r{s.receiver->snapshot().ok,
                   metrics.actors[actors::route_counter::fetch_starved].load()};
  p.stop();
  return r;
}

TEST(FetchStarvation, ATinyPrefetchStarvesTheRouteAndCourierCountsIt) {
  const std::size_t n = 400;
  // A fetch brings a few records (2 KiB), which fill the 1 KiB queue: each fetch is followed by
  // the one-second wait.
  const auto r =
      run(n, {{"queued.max.messages.kbytes", "1"}, {"max.partition.fetch.bytes", "2048"}},
          [](std::uint64_t, std::uint64_t starved, std::int64_t) { return starved > 0; });
  EXPECT_GT(r.starved, 0U);
  EXPECT_LT(r.delivered, n) << "it starved, so it was still delivering";
}

// The counter above can stay at zero: with courier's default prefetch the same records flow, and
// the empty polls at the end of the backlog are no stall. Waited for until the statistics show
// the lag gone: every interval that could still count is judged by then.
TEST(FetchStarvation, CouriersDefaultPrefetchDoesNotStarve) {
  const std::size_t n = 400;
  const auto r = run(n, {}, [&](std::uint64_t ok, std::uint64_t, std::int64_t lag) {
    return ok >= n && lag == 0;
  });
  EXPECT_EQ(r.delivered, n);
  EXPECT_EQ(r.starved, 0U);
}

}  // namespace
}  // namespace courier::testing
