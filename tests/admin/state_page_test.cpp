#include "admin/state_page.hpp"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "actors/route_metrics.hpp"
#include "admin/metrics_page.hpp"
#include "tests/admin/route_samples.hpp"

namespace courier::admin {
namespace {

using nlohmann::json;

TEST(AdminState, ShowsEachPartitionWithItsPauseReasonsLagAndAccounting) {
  const auto body = json::parse(render_state({busy_route()}, "0"));
  const auto& ps = body.at("routes").at(0).at("partitions");
  ASSERT_EQ(ps.size(), 2u);
  const auto& p0 = ps.at(0);
  EXPECT_EQ(p0.at("partition"), 0);
  EXPECT_EQ(p0.at("paused"), true);
  EXPECT_EQ(p0.at("paused_reasons"), json::array({"breaker", "produce_blocked"}));
  EXPECT_EQ(p0.at("paused_since"), "2026-12-01T16:05:07.123Z");
  EXPECT_EQ(p0.at("committed_offset"), 880);
  EXPECT_EQ(p0.at("high_watermark"), 1000);
  EXPECT_EQ(p0.at("lag"), 120);
  const auto& a = p0.at("accounting");
  EXPECT_EQ(a.at("consumed").get<int>(),
            a.at("delivered").get<int>() + a.at("retried").get<int>() +
                a.at("dead_lettered").get<int>() + a.at("released").get<int>() +
                a.at("already_done").get<int>() + p0.at("in_flight").get<int>());
  EXPECT_EQ(ps.at(1).at("assigned"), false);
  EXPECT_TRUE(ps.at(1).at("lag").is_null());
}

TEST(AdminState, NamesTheRoutesTopicAndItsDlqWritesByClass) {
  auto r = busy_route();
  r.topic = "brew.shipments.v1";
  r.dead_lettered_by_class = {{"http_4xx", 3}, {"timeout", 1}};
  const auto route = json::parse(render_state({r}, "0")).at("routes").at(0);
  EXPECT_EQ(route.at("topic"), "brew.shipments.v1");
  EXPECT_EQ(route.at("dead_lettered_by_class"), (json{{"http_4xx", 3}, {"timeout", 1}}));
}

TEST(AdminState, AnOrderedPartitionCarriesItsOrderingBlock) {
  const auto body = json::parse(render_state({ordered_route()}, "0"));
  const auto& ps = body.at("routes").at(0).at("partitions");
  const auto& o = ps.at(0).at("ordering");
  EXPECT_EQ(o.at("parked_keys"), 12);
  EXPECT_EQ(o.at("followers"), 30);
  EXPECT_EQ(o.at("oldest_parked_since"), "2026-12-01T16:05:07.123Z");
  EXPECT_EQ(ps.at(0).at("paused_reasons"), json::array({"ordering"}));
  EXPECT_FALSE(ps.at(1).contains("ordering"));
}

TEST(AdminState, NamesTheBreakerAndCarriesTheCounters) {
  const auto body = json::parse(render_state({busy_route()}, "1.2.3"));
  EXPECT_EQ(body.at("version"), "1.2.3");
  const auto& r = body.at("routes").at(0);
  EXPECT_EQ(r.at("name"), "shipments");
  EXPECT_EQ(r.at("breaker").at("state"), "half_open");
  EXPECT_EQ(r.at("in_flight"), 10);
  EXPECT_EQ(r.at("paused_partitions"), 3);
  EXPECT_EQ(r.at("counters").at("delivered"), 100);
  EXPECT_EQ(r.at("counters").at("dead_lettered"), 3);
  EXPECT_EQ(r.at("flags"), json::array()) << "nothing flagged";
}

TEST(AdminState, CarriesTheAutoRedrivesPhasesAndWhetherItIsOn) {
  auto route = busy_route();
  EXPECT_EQ(json::parse(render_state({route}, "1")).at("routes").at(0).at("auto_redrive"),
            (json{{"enabled", false}, {"watching", 0}, {"armed", 0}, {"running", 0}}));
  route.auto_redrive = true;
  route.gauges[actors::route_gauge::auto_redrive_armed] = 1;
  EXPECT_EQ(json::parse(render_state({route}, "1")).at("routes").at(0).at("auto_redrive"),
            (json{{"enabled", true}, {"watching", 0}, {"armed", 1}, {"running", 0}}));
}

TEST(AdminState, ShowsAnOperatorsPauseOfTheRouteInStateAndMetrics) {
  actors::route_metrics m;
  const auto running = snapshot_of("partner", m);
  EXPECT_TRUE(json::parse(render_state({running}, "1.2.3"))["routes"][0].at("paused").is_null());
  EXPECT_NE(render_metrics({running}, "1.2.3")
                .find(R"(courier_route_paused{route="partner",reason="operator"} 0)"),
            std::string::npos);
  m.operator_paused = true;
  const auto paused = snapshot_of("partner", m);
  EXPECT_EQ(json::parse(render_state({paused}, "1.2.3"))["routes"][0].at("paused"), "operator");
  const auto text = render_metrics({paused}, "1.2.3");
  EXPECT_NE(text.find(R"(courier_route_paused{route="partner",reason="operator"} 1)"),
            std::string::npos)
      << text;
}

TEST(AdminState, FlagsARouteTheSsrfGuardRefuses) {
  actors::route_metrics m;
  m.deliveries[delivery_counter::ssrf_blocked] = 12;
  m.endpoint_blocked = true;
  const auto snapshot = snapshot_of("partner", m);
  const auto body = json::parse(render_state({snapshot}, "1.2.3"));
  const auto& r = body.at("routes").at(0);
  EXPECT_EQ(r.at("flags"), json::array({"ssrf_blocked"}));
  EXPECT_EQ(r.at("counters").at("ssrf_blocked"), 12);
  const auto text = render_metrics({snapshot}, "1.2.3");
  EXPECT_NE(text.find("courier_ssrf_blocked_total{route=\"partner\"} 12"), std::string::npos)
      << text;
  EXPECT_NE(text.find("courier_endpoint_blocked{route=\"partner\"} 1"), std::string::npos) << text;
}

TEST(AdminState, FlagsARouteWhoseReceiverAnsweredGone) {
  actors::route_metrics m;
  m.deliveries[delivery_counter::gone] = 4;
  m.endpoint_gone = true;
  const auto snapshot = snapshot_of("partner", m);
  const auto body = json::parse(render_state({snapshot}, "1.2.3"));
  const auto& r = body.at("routes").at(0);
  EXPECT_EQ(r.at("flags"), json::array({"gone"}));
  EXPECT_EQ(r.at("counters").at("gone"), 4);
  const auto text = render_metrics({snapshot}, "1.2.3");
  EXPECT_NE(text.find("courier_endpoint_gone_total{route=\"partner\"} 4"), std::string::npos)
      << text;
  EXPECT_NE(text.find("courier_endpoint_gone{route=\"partner\"} 1"), std::string::npos) << text;
}

}  // namespace
}  // namespace courier::admin
