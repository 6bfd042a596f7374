// Endpoint-level failures are not record-level failures (DESIGN.md section 2): a receiver that
// refuses everyone (a rotated secret, a broken deployment answering 400 to everything) opens
// the breaker and holds the records; once it is fixed, every record is delivered, and only a
// failure about a record puts that record in the DLQ.

#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/model/idempotency_key.hpp"
#include "demo/topic_reader.hpp"
#include "tests/integration/stand.hpp"
#include "admin/endpoints.hpp"
#include "topology/admin_handles.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

TEST(EndpointFailures,
     AReceiverOnAnotherSecretOpensTheBreakerHoldsEveryRecordAndGetsThemAllOnceFixed) {
  stand s{2};
  s.route().hmac_secret = "the-rotated-secret";  // the receiver still checks test_secret()
  s.seed(100);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, topology::pipeline_options{2s, 3}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(
      wait_until([&] { return m.actors[actors::route_counter::breaker_trips].load() >= 1; }, 30s))
      << "401s: " << s.receiver->snapshot().fail_401;
  EXPECT_GE(s.receiver->snapshot().fail_401, 5U);
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), 0U)
      << "a 401 is about the endpoint, not the record";
  EXPECT_EQ(m.deliveries[delivery_counter::retried].load(), 0U);

  s.receiver->set_secret("the-rotated-secret");  // the partner catches up with the rotation
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 100; }, 60s))
      << "delivered: " << s.receiver->snapshot().ok;
  ASSERT_TRUE(s.wait_group_settled(m));
  p.stop();
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), 0U);
  EXPECT_EQ(m.deliveries[delivery_counter::retried].load(), 0U);
  EXPECT_EQ(s.receiver->snapshot().ok, 100U);
  EXPECT_EQ(s.receiver->snapshot().duplicates, 0U) << "each record delivered once";
  EXPECT_EQ(s.committed_total(), 100) << "everything delivered is committed";
}

TEST(EndpointFailures,
     ARunOfPermanentAnswersAcrossRecordsTripsTheBreakerInsteadOfEmptyingTheTopic) {
  mock::server_settings ws;
  ws.initial.fail_rate_400 = 1.0;  // a broken deployment rejects every payload
  stand s{1, ws};
  s.route().breaker.trip_on_permanent_run = 5;
  s.route().breaker.open_timeout = 1s;
  constexpr std::size_t n = 200;
  s.seed(n);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, topology::pipeline_options{2s, 3}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(
      wait_until([&] { return m.actors[actors::route_counter::breaker_trips].load() >= 1; }, 30s));
  // Up to the run's threshold, plus what was in flight when it was reached, plus one probe per
  // open_timeout: far from the whole topic.
  const auto dead_at_trip = m.deliveries[delivery_counter::dead_lettered].load();
  EXPECT_LT(dead_at_trip, 40U) << "dead-lettered before the breaker opened";

  s.receiver->set_chaos(mock::chaos{});  // the partner rolls back
  ASSERT_TRUE(wait_until(
      [&] {
        return s.receiver->snapshot().ok + m.deliveries[delivery_counter::dead_lettered].load() >=
               n;
      },
      60s))
      << "delivered " << s.receiver->snapshot().ok << ", dead-lettered "
      << m.deliveries[delivery_counter::dead_lettered].load();
  ASSERT_TRUE(s.wait_group_settled(m));
  p.stop();

  // Accounting: every seeded record was delivered or is in the DLQ, never both, once each.
  const auto dlq =
      demo::read_topic(s.cfg.kafka.brokers, s.dlq,
                       m.deliveries[delivery_counter::dead_lettered].load(), 20s, fast_group());
  const auto delivered = delivered_keys(*s.receiver);
  std::set<std::string> parked;
  for (const auto& r : dlq) {
    const auto key = idempotency_key_for(r);
    EXPECT_EQ(delivered.count(key), 0U) << key << " was delivered and dead-lettered";
    EXPECT_TRUE(parked.insert(key).second) << key << " is in the DLQ twice";
  }
  EXPECT_EQ(delivered.size() + parked.size(), n);
  EXPECT_EQ(s.receiver->snapshot().ok, delivered.size()) << "no record delivered twice";
  EXPECT_LT(parked.size(), 60U);
  EXPECT_EQ(s.committed_total(), static_cast<long long>(n));
}

TEST(EndpointFailures,
     AGoneReceiverHoldsEveryRecordFlagsTheRouteAndAProbeDeliversThemOnceItIsBack) {
  mock::server_settings ws;
  ws.initial.gone = true;  // the partner disabled the endpoint: 410 to everything
  stand s{1, ws};
  s.route().breaker.gone_probe_interval = 1s;
  constexpr std::size_t n = 50;
  s.seed(n);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, topology::pipeline_options{2s, 3}};
  const admin::admin_endpoints endpoints{sys, topology::admin_handles_of(p)};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until(
      [&] {
        return m.actors[actors::route_counter::breaker_trips].load() >= 1 && m.endpoint_gone.load();
      },
      30s))
      << "410s: " << s.receiver->snapshot().fail_410;
  EXPECT_EQ(m.breaker_state.load(), static_cast<int>(breaker_state::open));
  // The breaker opened at the first 410: only what was in flight then got one too.
  EXPECT_GE(m.deliveries[delivery_counter::gone].load(), 1U);
  const auto state = nlohmann::json::parse(endpoints.handle("GET", "/state").body);
  const auto& route = state.at("routes").at(0);
  EXPECT_EQ(route.at("flags"), nlohmann::json::array({"gone"})) << route.dump();
  EXPECT_GE(route.at("counters").at("gone").get<std::uint64_t>(), 1U);
  const auto metrics = endpoints.handle("GET", "/metrics").body;
  EXPECT_NE(metrics.find("courier_endpoint_gone{route=\"shipments\"} 1"), std::string::npos)
      << metrics;
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), 0U)
      << "a 410 is about the endpoint, not the record";
  EXPECT_EQ(m.deliveries[delivery_counter::retried].load(), 0U);

  // A probe per gone_probe_interval: still 410, still held.
  const auto probes_before = s.receiver->snapshot().fail_410;
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().fail_410 > probes_before; }, 30s));
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), 0U);

  s.receiver->set_chaos(mock::chaos{});  // the partner enables the endpoint again
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= n; }, 60s))
      << "delivered: " << s.receiver->snapshot().ok;
  EXPECT_FALSE(m.endpoint_gone.load());
  const auto after = nlohmann::json::parse(endpoints.handle("GET", "/state").body);
  EXPECT_EQ(after.at("routes").at(0).at("flags"), nlohmann::json::array()) << after.dump();
  ASSERT_TRUE(s.wait_group_settled(m));
  p.stop();

  // Accounting: every record delivered exactly once, none in the DLQ.
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), 0U);
  EXPECT_EQ(m.deliveries[delivery_counter::retried].load(), 0U);
  const auto delivered = delivered_keys(*s.receiver);
  EXPECT_EQ(delivered.size(), n);
  EXPECT_EQ(s.receiver->snapshot().ok, n);
  EXPECT_EQ(s.receiver->snapshot().duplicates, 0U) << "each record delivered once";
  EXPECT_EQ(s.committed_total(), static_cast<long long>(n));
}

}  // namespace
}  // namespace courier::testing
