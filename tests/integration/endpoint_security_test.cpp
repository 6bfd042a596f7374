// The network guards through the whole pipeline: HTTPS with verification against the mock
// webhook serving TLS (test certificates made here), and the SSRF guard refusing a loopback
// endpoint for a route that does not allow private targets.

#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/model/record.hpp"
#include "demo/topic_reader.hpp"
#include "tests/integration/stand.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_pki.hpp"
#include "admin/endpoints.hpp"
#include "topology/admin_handles.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

std::string header_or_empty(const record& r, std::string_view name) {
  const auto v = find_header(r.headers, name);
  return v ? std::string{*v} : std::string{};
}

mock::server_settings serving(const pem_pair& cert) {
  mock::server_settings ws;
  ws.tls_cert_file = cert.cert.string();
  ws.tls_key_file = cert.key.string();
  return ws;
}

TEST(EndpointSecurity, DeliversEveryRecordOverVerifiedHttpsAndCommitsThem) {
  const temp_dir dir{"pipeline-tls"};
  const test_pki pki{dir.path()};
  stand s{2, serving(pki.server())};
  ASSERT_EQ(s.receiver->url().substr(0, 8), "https://");
  s.route().tls.ca_file = pki.ca_file().string();
  s.route().http.max_connections = 4;
  s.seed(100);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, topology::pipeline_options{2s, 3}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 100; }, 60s))
      << "delivered: " << s.receiver->snapshot().ok;
  ASSERT_TRUE(s.wait_group_settled(m));
  p.stop();
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), 0U);
  EXPECT_EQ(s.receiver->snapshot().duplicates, 0U);
  EXPECT_EQ(s.committed_total(), 100);
  EXPECT_LE(p.routes().front().endpoints.front().client->connections_opened(), 4U)
      << "TLS connections are kept alive and reused";
}

// An unknown CA, a certificate for another host, an expired one: each attempt ends as `tls`,
// the records go through the tiers to the DLQ with that class and the reason, none is lost.
TEST(EndpointSecurity, ACertificateThatDoesNotVerifyEndsAsTlsAndLosesNoRecord) {
  const temp_dir dir{"pipeline-tls-bad"};
  const test_pki pki{dir.path()};
  struct bad_case {
    pem_pair cert;
    std::string reason;
  };
  for (const auto& c : {bad_case{pki.unknown_ca_server(), "self-signed certificate"},
                        bad_case{pki.wrong_host_server(), "IP address mismatch"},
                        bad_case{pki.expired_server(), "certificate has expired"}}) {
    SCOPED_TRACE(c.reason);
    stand s{1, serving(c.cert)};
    s.route().tls.ca_file = pki.ca_file().string();
    s.route().retry.max_attempts = 2;
    s.route().retry_tiers = {100ms};
    s.route().breaker.trip_after = 1000;  // keep it closed: this is about the records
    constexpr std::size_t n = 5;
    s.seed(n);
    caf::actor_system sys{s.sys_cfg};
    topology::pipeline p{sys, s.cfg, topology::pipeline_options{2s, 3}};
    const auto& m = *p.routes().front().metrics;
    ASSERT_TRUE(
        wait_until([&] { return m.deliveries[delivery_counter::dead_lettered].load() >= n; }, 60s))
        << "dead-lettered: " << m.deliveries[delivery_counter::dead_lettered].load();
    ASSERT_TRUE(s.wait_group_settled(m));
    p.stop();
    EXPECT_EQ(s.receiver->snapshot().total, 0U) << "no request went out unverified";
    const auto dlq = demo::read_topic(s.cfg.kafka.brokers, s.dlq, n, 20s, fast_group());
    ASSERT_EQ(dlq.size(), n);
    for (const auto& r : dlq) {
      EXPECT_EQ(header_or_empty(r, "courier.error.class"), "tls");
      EXPECT_NE(header_or_empty(r, "courier.error.message").find(c.reason), std::string::npos)
          << header_or_empty(r, "courier.error.message");
    }
    EXPECT_EQ(s.committed_total(), static_cast<long long>(n)) << "committed once in the DLQ";
  }
}

TEST(EndpointSecurity, ALoopbackEndpointIsRefusedHeldAndFlaggedUnlessTheRouteAllowsIt) {
  stand s{1};
  s.route().allow_private_targets = false;
  s.route().breaker.open_timeout = 300ms;
  s.seed(20);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, topology::pipeline_options{2s, 3}};
  const admin::admin_endpoints endpoints{sys, topology::admin_handles_of(p)};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until(
      [&] {
        return m.actors[actors::route_counter::breaker_trips].load() >= 1 &&
               m.deliveries[delivery_counter::ssrf_blocked].load() >= 5;
      },
      30s))
      << "trips: " << m.actors[actors::route_counter::breaker_trips].load()
      << ", refused: " << m.deliveries[delivery_counter::ssrf_blocked].load();
  EXPECT_TRUE(m.endpoint_blocked.load());
  EXPECT_GE(m.deliveries[delivery_counter::ssrf_blocked].load(), 5U);

  const auto state = nlohmann::json::parse(endpoints.handle("GET", "/state").body);
  const auto& route = state.at("routes").at(0);
  EXPECT_EQ(route.at("flags"), nlohmann::json::array({"ssrf_blocked"})) << route.dump();
  EXPECT_GE(route.at("counters").at("ssrf_blocked").get<std::uint64_t>(), 5U);
  const auto metrics = endpoints.handle("GET", "/metrics").body;
  EXPECT_NE(metrics.find("courier_endpoint_blocked{route=\"shipments\"} 1"), std::string::npos)
      << metrics;
  p.stop();

  EXPECT_EQ(s.receiver->snapshot().total, 0U) << "nothing reached the loopback receiver";
  EXPECT_EQ(m.deliveries[delivery_counter::delivered].load(), 0U);
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), 0U)
      << "refused for the route, not for the record";
  EXPECT_EQ(m.deliveries[delivery_counter::retried].load(), 0U);
  EXPECT_EQ(s.committed_total(), 0) << "held records stay uncommitted";
}

TEST(EndpointSecurity, ALoopbackEndpointDeliversWhenTheRouteAllowsPrivateTargets) {
  stand s{1};
  ASSERT_TRUE(s.route().allow_private_targets);
  s.seed(20);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, topology::pipeline_options{2s, 3}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 20; }, 30s));
  ASSERT_TRUE(s.wait_group_settled(m));
  p.stop();
  EXPECT_FALSE(m.endpoint_blocked.load());
  EXPECT_EQ(m.deliveries[delivery_counter::ssrf_blocked].load(), 0U);
  EXPECT_EQ(s.committed_total(), 20);
}

}  // namespace
}  // namespace courier::testing
