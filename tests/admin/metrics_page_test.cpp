#include "admin/metrics_page.hpp"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "actors/route_metrics.hpp"
#include "actors/router_metrics.hpp"
#include "tests/admin/route_samples.hpp"

namespace courier::admin {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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

// A route with several endpoints: each endpoint's series labelled by it, the route's adding them
// up, its breaker Open while one endpoint's is.
TEST(AdminMetrics, ARouteWithSeveralEndpointsShowsEachAndAddsThemUp) {
  actors::route_metrics consumer;
  actors::route_metrics acme;
  actors::route_metrics zoom;
  acme.deliveries[delivery_counter::delivered] = 40;
  zoom.deliveries[delivery_counter::delivered] = 2;
  zoom.deliveries[delivery_counter::retried] = 9;
  zoom.breaker_state = 1;
  acme.breaker_state = 2;
  auto route = snapshot_of("shipments", consumer);
  add_endpoint(route, snapshot_of("acme", acme));
  add_endpoint(route, snapshot_of("zoom", zoom));
  const auto text = render_metrics({route}, "0");
  EXPECT_THAT(text, HasSubstr("courier_endpoint_deliveries_total{route=\"shipments\",endpoint="
                              "\"acme\",outcome=\"delivered\"} 40\n"));
  EXPECT_THAT(text, HasSubstr("courier_endpoint_deliveries_total{route=\"shipments\",endpoint="
                              "\"zoom\",outcome=\"retried\"} 9\n"));
  EXPECT_THAT(text, HasSubstr("courier_endpoint_breaker_state{route=\"shipments\",endpoint="
                              "\"zoom\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("courier_endpoint_breaker_state{route=\"shipments\",endpoint="
                              "\"acme\"} 2\n"));
  EXPECT_THAT(
      text, HasSubstr("courier_deliveries_total{route=\"shipments\",outcome=\"delivered\"} 42\n"));
  EXPECT_THAT(text, HasSubstr("courier_breaker_state{route=\"shipments\"} 1\n"))
      << "open while one endpoint's breaker is";
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

TEST(AdminMetrics, ARouteWithSeveralEndpointsHasEachEndpointsDurationAndLatencyHistograms) {
  actors::route_metrics consumer{2.0};
  actors::route_metrics acme{2.0};
  actors::route_metrics zoom{2.0};
  acme.request_seconds.observe(0.003);
  acme.delivery_seconds.observe(0.5);
  zoom.request_seconds.observe(0.040);
  zoom.request_seconds.observe(0.040);
  consumer.fetch_seconds.observe(0.2);
  auto route = snapshot_of("shipments", consumer);
  route.request_seconds = &consumer.request_seconds;
  route.delivery_seconds = &consumer.delivery_seconds;
  route.fetch_seconds = &consumer.fetch_seconds;
  for (auto* m : {&acme, &zoom}) {
    auto ep = snapshot_of(m == &acme ? "acme" : "zoom", *m);
    ep.request_seconds = &m->request_seconds;
    ep.delivery_seconds = &m->delivery_seconds;
    add_endpoint(route, std::move(ep));
  }
  const auto text = render_metrics({route}, "0");
  EXPECT_THAT(text, HasSubstr("courier_delivery_request_duration_seconds_count{route=\"shipments\","
                              "endpoint=\"acme\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("courier_delivery_request_duration_seconds_count{route=\"shipments\","
                              "endpoint=\"zoom\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("courier_delivery_latency_seconds_count{route=\"shipments\","
                              "endpoint=\"acme\"} 1\n"));
  EXPECT_THAT(
      text, Not(HasSubstr("courier_delivery_request_duration_seconds_count{route=\"shipments\"}")))
      << "the consumer's empty histogram is not the route's";
  EXPECT_THAT(text,
              HasSubstr("courier_consumer_fetch_latency_seconds_count{route=\"shipments\"} 1\n"))
      << "the fetch latency is the consumer's, one for the route";
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

TEST(AdminMetrics, TheScalableLagLeavesOutWhatTheBreakerOrAnOperatorHolds) {
  const auto scalable = [](const route_snapshot& r) {
    const auto text = render_metrics({r}, "0");
    const std::string series = R"(courier_scalable_lag{route="shipments"} )";
    const auto at = text.find(series);
    EXPECT_NE(at, std::string::npos) << text;
    return at == std::string::npos
               ? std::string{}
               : text.substr(at + series.size(), text.find('\n', at) - at - series.size());
  };
  auto r = busy_route();
  EXPECT_EQ(scalable(r), "0") << "its lagging partition waits for the breaker";
  ASSERT_FALSE(r.partitions.empty());
  r.partitions[0].reasons = {pause_reason::produce_blocked};
  auto tier = r.partitions[0];
  tier.id.topic = "brew.shipments.v1.retry-5s";
  r.partitions.push_back(tier);
  EXPECT_EQ(scalable(r), "120") << "the source partition's lag; a tier's records wait for time";
  r.endpoint_gone = true;
  EXPECT_EQ(scalable(r), "0") << "a 410: more instances would not deliver it";
  r.endpoint_gone = false;
  r.operator_paused = true;
  EXPECT_EQ(scalable(r), "0");
}

TEST(AdminMetrics, TheOldestUndeliveredAgeCountsFromItsTimestampToTheSnapshot) {
  const std::string series =
      R"(courier_oldest_undelivered_age_seconds{route="shipments",topic="brew.shipments.v1",partition="0"} )";
  auto r = busy_route();
  ASSERT_FALSE(r.partitions.empty());
  r.taken_at_ms = 1'700'000'042'500;
  r.partitions[0].oldest_undelivered_ms = 1'700'000'000'000;
  EXPECT_THAT(render_metrics({r}, "0"), HasSubstr(series + "42.5\n")) << "waits 42.5 s";
  r.partitions[0].oldest_undelivered_ms.reset();
  r.partitions[0].lag = 0;
  EXPECT_THAT(render_metrics({r}, "0"), HasSubstr(series + "0\n")) << "delivered, no lag";
  r.partitions[0].lag = 7;
  EXPECT_THAT(render_metrics({r}, "0"), Not(HasSubstr(series)))
      << "records lag and none is fetched: their age is not known";
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

}  // namespace
}  // namespace courier::admin
