#include "topology/admin_routes.hpp"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "actors/route_metrics.hpp"
#include "actors/router_metrics.hpp"

namespace courier::topology {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;

route_snapshot busy_route() {
  actors::route_metrics m;
  m.consumer[consumer_counter::consumed] = 120;
  m.deliveries[delivery_counter::delivered] = 100;
  m.deliveries[delivery_counter::retried] = 7;
  m.deliveries[delivery_counter::dead_lettered] = 3;
  m.deliveries[delivery_counter::attempts] = 131;
  m.deliveries[delivery_counter::retries] = 21;
  m.deliveries[delivery_counter::endpoint_failures] = 2;
  m.deliveries[delivery_counter::head_of_line_moves] = 4;
  m.breaker_state = 2;
  m.actors[actors::route_counter::breaker_trips] = 1;
  m.actors[actors::route_counter::breaker_to_open] = 3;
  m.actors[actors::route_counter::breaker_to_half_open] = 2;
  m.actors[actors::route_counter::commit_failures] = 4;
  m.deliveries[delivery_counter::answered_2xx] = 100;
  m.deliveries[delivery_counter::answered_5xx] = 21;
  m.deliveries[delivery_counter::answered_none] = 10;
  m.actors[actors::route_counter::pauses] = 5;
  m.paused_partitions = 3;
  m.in_flight = 10;
  m.assigned = true;
  consumer_core::partition_status p0;
  p0.id = {"brew.shipments.v1", 0};
  p0.assigned = true;
  p0.reasons = {pause_reason::breaker, pause_reason::produce_blocked};
  p0.paused_since_ms = 1'796'141'107'123;
  p0.committable = 900;
  p0.in_flight = 6;
  p0.accounting = {60, 50, 3, 1, 0};
  consumer_core::partition_status p1;
  p1.id = {"brew.shipments.v1", 1};
  p1.accounting = {60, 50, 4, 2, 4};  // revoked: what was in flight was released
  m.partitions.publish({p0, p1});
  m.partitions.publish(std::vector<kafka::partition_position>{
      {"brew.shipments.v1", 0, 880, 1000, 120}, {"brew.shipments.v1", 1, 40, 60, 20}});
  auto s = snapshot_of("shipments", m);
  s.topic = "brew.shipments.v1";
  s.dlq_topic = "brew.shipments.dlq";
  return s;
}

TEST(AdminMetrics, RendersEveryRouteCounterFromTheAtomics) {
  const auto text = render_metrics({busy_route()}, "1.2.3");
  EXPECT_THAT(text, HasSubstr("# TYPE courier_records_consumed_total counter\n"));
  EXPECT_THAT(text, HasSubstr("courier_records_consumed_total{route=\"shipments\"} 120\n"));
  EXPECT_THAT(
      text, HasSubstr("courier_deliveries_total{route=\"shipments\",outcome=\"delivered\"} 100\n"));
  EXPECT_THAT(text,
              HasSubstr("courier_deliveries_total{route=\"shipments\",outcome=\"retried\"} 7\n"));
  EXPECT_THAT(
      text,
      HasSubstr("courier_deliveries_total{route=\"shipments\",outcome=\"dead_lettered\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("courier_delivery_attempts_total{route=\"shipments\"} 131\n"));
  EXPECT_THAT(text, HasSubstr("courier_delivery_retries_total{route=\"shipments\"} 21\n"));
  EXPECT_THAT(text, HasSubstr("courier_endpoint_failures_total{route=\"shipments\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("courier_head_of_line_moves_total{route=\"shipments\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE courier_breaker_state gauge\n"));
  EXPECT_THAT(text, HasSubstr("courier_breaker_state{route=\"shipments\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("courier_breaker_trips_total{route=\"shipments\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("courier_pauses_total{route=\"shipments\"} 5\n"));
  EXPECT_THAT(text, HasSubstr("courier_partitions_paused{route=\"shipments\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("courier_in_flight{route=\"shipments\"} 10\n"));
  EXPECT_THAT(text, HasSubstr("courier_build_info{version=\"1.2.3\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("courier_retry_produce_failures_total 0\n"));
  // The alert rules (docker/prometheus/alerts.yml) join this for the topic names.
  EXPECT_THAT(text, HasSubstr("courier_route_info{route=\"shipments\",topic=\"brew.shipments.v1\","
                              "dlq_topic=\"brew.shipments.dlq\"} 1\n"));
}

TEST(AdminMetrics, EverySeriesExistsWithZeroBeforeTheFirstRecord) {
  const auto text = render_metrics({snapshot_of("idle", actors::route_metrics{})}, "0");
  for (const char* series :
       {"courier_records_consumed_total{route=\"idle\"} 0\n",
        "courier_deliveries_total{route=\"idle\",outcome=\"delivered\"} 0\n",
        "courier_deliveries_total{route=\"idle\",outcome=\"retried\"} 0\n",
        "courier_deliveries_total{route=\"idle\",outcome=\"dead_lettered\"} 0\n",
        "courier_breaker_trips_total{route=\"idle\"} 0\n",
        "courier_breaker_state{route=\"idle\"} 0\n",
        "courier_partitions_paused{route=\"idle\"} 0\n", "courier_in_flight{route=\"idle\"} 0\n"}) {
    EXPECT_THAT(text, HasSubstr(series));
  }
}

TEST(AdminMetrics, OneFamilyHeaderForAllRoutes) {
  auto a = busy_route();
  auto b = busy_route();
  b.name = "invoices";
  const auto text = render_metrics({a, b}, "0");
  const auto first = text.find("# TYPE courier_pauses_total counter");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(text.find("# TYPE courier_pauses_total counter", first + 1), std::string::npos);
  EXPECT_THAT(text, HasSubstr("courier_pauses_total{route=\"invoices\"} 5\n"));
}

TEST(AdminMetrics, RendersTheRequestDurationHistogramOfEachRoute) {
  actors::route_metrics m{2.0};
  m.request_seconds.observe(0.003);
  m.request_seconds.observe(0.040);
  m.request_seconds.observe(9.0);  // beyond the timeout: only +Inf counts it
  auto r = busy_route();
  r.request_seconds = &m.request_seconds;
  const auto text = render_metrics({r}, "0");
  EXPECT_THAT(text, HasSubstr("# TYPE courier_delivery_request_duration_seconds histogram\n"));
  EXPECT_THAT(text,
              HasSubstr("courier_delivery_request_duration_seconds_bucket{route=\"shipments\","
                        "le=\"0.005\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("courier_delivery_request_duration_seconds_bucket{route=\"shipments\","
                        "le=\"2\"} 2\n"));
  EXPECT_THAT(
      text, HasSubstr("courier_delivery_request_duration_seconds_count{route=\"shipments\"} 3\n"));
}

TEST(AdminMetrics, RendersTheRecordToDeliveryLatencyUpToAnHour) {
  actors::route_metrics m;
  m.delivery_seconds.observe(0.02);
  m.delivery_seconds.observe(320.0);  // through the 5 m tier
  auto r = busy_route();
  r.delivery_seconds = &m.delivery_seconds;
  const auto text = render_metrics({r}, "0");
  EXPECT_THAT(text, HasSubstr("# TYPE courier_delivery_latency_seconds histogram\n"));
  EXPECT_THAT(
      text, HasSubstr(R"(courier_delivery_latency_seconds_bucket{route="shipments",le="3600"} 2)"));
  EXPECT_THAT(text, HasSubstr(R"(courier_delivery_latency_seconds_count{route="shipments"} 2)"));
}

TEST(AdminMetrics, RendersTheRecordToPollLatencyOfEachRoute) {
  actors::route_metrics m;
  m.fetch_seconds.observe(0.004);
  m.fetch_seconds.observe(0.3);
  auto r = busy_route();
  r.fetch_seconds = &m.fetch_seconds;
  const auto text = render_metrics({r}, "0");
  EXPECT_THAT(text, HasSubstr("# TYPE courier_consumer_fetch_latency_seconds histogram\n"));
  EXPECT_THAT(
      text,
      HasSubstr(
          R"(courier_consumer_fetch_latency_seconds_bucket{route="shipments",le="0.005"} 1)"));
  EXPECT_THAT(text,
              HasSubstr(R"(courier_consumer_fetch_latency_seconds_count{route="shipments"} 2)"));
}

TEST(AdminReadiness, NotReadyWhileTheBrokerIsUnreachable) {
  auto r = busy_route();
  r.broker_reachable = false;
  const auto v = readiness({r}, false);
  EXPECT_FALSE(v.ok);
  const auto body = json::parse(v.body);
  EXPECT_EQ(body.at("reason"), "the broker is unreachable");
  EXPECT_EQ(body.at("routes"), json::array({"shipments"}));
  r.broker_reachable = true;
  EXPECT_TRUE(readiness({r}, false).ok);
}

TEST(AdminReadiness, NotReadyBeforeTheFirstAssignment) {
  auto r = busy_route();
  r.assigned = false;
  const auto v = readiness({r}, false);
  EXPECT_FALSE(v.ok);
  const auto body = json::parse(v.body);
  EXPECT_THAT(body.at("reason").get<std::string>(), HasSubstr("assignment"));
  EXPECT_EQ(body.at("routes"), json::array({"shipments"}));
}

TEST(AdminReadiness, ReadyOnceEveryRouteWasAssigned) {
  auto other = busy_route();
  other.name = "invoices";
  EXPECT_TRUE(readiness({busy_route(), other}, false).ok);
  other.assigned = false;
  EXPECT_FALSE(readiness({busy_route(), other}, false).ok);
}

TEST(AdminReadiness, NotReadyWhileDrainingOrStopping) {
  auto r = busy_route();
  EXPECT_FALSE(readiness({r}, true).ok);
  r.draining = true;
  const auto v = readiness({r}, false);
  EXPECT_FALSE(v.ok);
  EXPECT_THAT(json::parse(v.body).at("reason").get<std::string>(), HasSubstr("drain"));
}

TEST(AdminLiveness, HealthyOnlyWhenEveryActorAnswered) {
  using kind = actor_answer::kind;
  EXPECT_TRUE(liveness({{"breaker of route a", kind::answered}}, std::chrono::seconds{1}).ok);
  const auto dead =
      liveness({{"breaker of route a", kind::answered}, {"consumer of route a", kind::down}},
               std::chrono::seconds{1});
  EXPECT_FALSE(dead.ok);
  EXPECT_EQ(json::parse(dead.body).at("down"), json::array({"consumer of route a"}));
  const auto stuck =
      liveness({{"delivery_pool of route a", kind::timed_out}}, std::chrono::seconds{1});
  EXPECT_FALSE(stuck.ok);
  EXPECT_THAT(json::parse(stuck.body).at("reason").get<std::string>(), HasSubstr("1000 ms"));
}

TEST(AdminMetrics, RendersAnswersByStatusClassBreakerTransitionsAndCommitFailures) {
  const auto text = render_metrics({busy_route()}, "0");
  EXPECT_THAT(text,
              HasSubstr(R"(courier_delivery_answers_total{route="shipments",class="2xx"} 100)"));
  EXPECT_THAT(text,
              HasSubstr(R"(courier_delivery_answers_total{route="shipments",class="5xx"} 21)"));
  EXPECT_THAT(text,
              HasSubstr(R"(courier_delivery_answers_total{route="shipments",class="none"} 10)"));
  EXPECT_THAT(text, HasSubstr(R"(courier_delivery_answers_total{route="shipments",class="3xx"} 0)"))
      << "every class exists from the start";
  EXPECT_THAT(text,
              HasSubstr(R"(courier_breaker_transitions_total{route="shipments",to="open"} 3)"));
  EXPECT_THAT(
      text, HasSubstr(R"(courier_breaker_transitions_total{route="shipments",to="half_open"} 2)"));
  EXPECT_THAT(text,
              HasSubstr(R"(courier_breaker_transitions_total{route="shipments",to="closed"} 0)"));
  EXPECT_THAT(text, HasSubstr(R"(courier_commit_failures_total{route="shipments"} 4)"));
}

TEST(AdminMetrics, RendersTheRoutersRecordsByDestinationAndErrorClass) {
  actors::router_metrics rm;
  rm.count_produced("brew.shipments.dlq", "http_4xx");
  rm.count_produced("brew.shipments.dlq", "http_4xx");
  rm.count_produced("brew.shipments.v1.retry-5s", "http_503");
  const auto text = render_metrics({busy_route()}, "0", snapshot_of(rm));
  EXPECT_THAT(
      text,
      HasSubstr(
          R"(courier_retry_records_produced_by_destination_total{topic="brew.shipments.dlq",error_class="http_4xx"} 2)"));
  EXPECT_THAT(
      text,
      HasSubstr(
          R"(courier_retry_records_produced_by_destination_total{topic="brew.shipments.v1.retry-5s",error_class="http_503"} 1)"));
}

TEST(AdminMetrics, RendersEachPartitionsAccountingPositionAndPauseReasons) {
  const auto text = render_metrics({busy_route()}, "0");
  const std::string p0 = R"(route="shipments",topic="brew.shipments.v1",partition="0")";
  const std::string p1 = R"(route="shipments",topic="brew.shipments.v1",partition="1")";
  EXPECT_THAT(text, HasSubstr("# TYPE courier_partition_records_total counter\n"));
  EXPECT_THAT(text,
              HasSubstr("courier_partition_records_total{" + p0 + R"(,state="consumed"} 60)"));
  EXPECT_THAT(text, HasSubstr("courier_partition_records_total{" + p0 + R"(,state="retried"} 3)"));
  EXPECT_THAT(text, HasSubstr("courier_partition_records_total{" + p1 + R"(,state="released"} 4)"));
  EXPECT_THAT(text, HasSubstr("courier_partition_in_flight{" + p0 + "} 6\n"));
  EXPECT_THAT(text, HasSubstr("courier_consumer_lag{" + p0 + "} 120\n"));
  EXPECT_THAT(text, HasSubstr("courier_committed_offset{" + p0 + "} 880\n"));
  EXPECT_THAT(text, HasSubstr("courier_partition_high_watermark{" + p0 + "} 1000\n"));
  EXPECT_THAT(text, Not(HasSubstr("courier_consumer_lag{" + p1)))
      << "a revoked partition's lag is another consumer's";
  EXPECT_THAT(
      text,
      HasSubstr(R"(courier_partitions_paused_by_reason{route="shipments",reason="breaker"} 1)"));
  EXPECT_THAT(
      text,
      HasSubstr(R"(courier_partitions_paused_by_reason{route="shipments",reason="retry_due"} 0)"))
      << "every reason has a series from the start";
}

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

// routes[].ordering "key": the parked keys, the followers and since when the oldest key waits,
// for the partitions with an order book only.
route_snapshot ordered_route() {
  auto s = busy_route();
  actors::partition_board board;
  consumer_core::partition_status p0;
  p0.id = {"brew.shipments.v1", 0};
  p0.assigned = true;
  p0.reasons = {pause_reason::ordering};
  p0.ordered = true;
  p0.parked_keys = 12;
  p0.followers = 30;
  p0.oldest_parked_since_ms = 1'796'141'107'123;
  consumer_core::partition_status p1;
  p1.id = {"brew.shipments.v1", 1};
  p1.assigned = true;
  board.publish({p0, p1});
  s.partitions = board.snapshot();
  return s;
}

TEST(AdminMetrics, AnOrderedPartitionShowsItsParkedKeysFollowersAndOldestPark) {
  const auto text = render_metrics({ordered_route()}, "0");
  const std::string p0 = R"(route="shipments",topic="brew.shipments.v1",partition="0")";
  EXPECT_THAT(text, HasSubstr("courier_partition_parked_keys{" + p0 + "} 12\n"));
  EXPECT_THAT(text, HasSubstr("courier_partition_followers{" + p0 + "} 30\n"));
  EXPECT_THAT(text, HasSubstr("courier_partition_oldest_parked_timestamp_seconds{" + p0 +
                              "} 1796141107.123\n"));
  EXPECT_THAT(
      text,
      Not(HasSubstr(
          R"(courier_partition_parked_keys{route="shipments",topic="brew.shipments.v1",partition="1"})")))
      << "no order book, no series";
  EXPECT_THAT(
      text,
      HasSubstr(R"(courier_partitions_paused_by_reason{route="shipments",reason="ordering"} 1)"));
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

// Every row of every counter table is a series of /metrics and, when it has a name there, a key
// of /state's counters, with the value the route's metrics hold.
template <class E>
void fill(metrics::counter_array<E, std::atomic<std::uint64_t>>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    values.at_index(i) = 1000 + i;
  }
}

template <class E>
void check_every_row(const std::string& text, const json& counters) {
  const auto& rows = metrics::counter_table<E>::rows;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    std::string series = std::string{row.metric} + "{route=\"r\"";
    if (!row.label.empty()) {
      series += "," + std::string{row.label} + "=\"" + std::string{row.label_value} + "\"";
    }
    series += "} ";
    if (row.scale != 1) {
      // A count in a smaller unit (microseconds of a *_seconds_total family): scaled.
      const double want = static_cast<double>(1000 + i) * row.scale;
      const auto at = text.find(series);
      ASSERT_NE(at, std::string::npos) << row.metric;
      EXPECT_NEAR(std::stod(text.substr(at + series.size())), want, want * 1e-9) << row.metric;
      if (!row.state_name.empty()) {
        EXPECT_NEAR(counters.value(std::string{row.state_name}, 0.0), want, want * 1e-9)
            << row.state_name;
      }
      continue;
    }
    series += std::to_string(1000 + i) + "\n";
    EXPECT_THAT(text, HasSubstr(series)) << row.metric;
    if (!row.state_name.empty()) {
      EXPECT_EQ(counters.value(std::string{row.state_name}, 0U), 1000 + i) << row.state_name;
    }
  }
}

TEST(AdminCounters, EveryRowOfEveryCounterTableIsInMetricsAndState) {
  actors::route_metrics m;
  fill(m.deliveries);
  fill(m.consumer);
  fill(m.actors);
  const auto snapshot = snapshot_of("r", m);
  const auto text = render_metrics({snapshot}, "0", router_snapshot{});
  const auto counters = json::parse(render_state({snapshot}, "0"))["routes"][0]["counters"];
  check_every_row<delivery_counter>(text, counters);
  check_every_row<consumer_counter>(text, counters);
  check_every_row<actors::route_counter>(text, counters);
}

}  // namespace
}  // namespace courier::topology
