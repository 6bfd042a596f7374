#include "admin/snapshot.hpp"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "actors/route_metrics.hpp"
#include "actors/router_metrics.hpp"
#include "admin/metrics_page.hpp"
#include "admin/state_page.hpp"

namespace courier::admin {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

TEST(AdminSnapshot, LoadsEveryGaugeAndFlagOfTheRoute) {
  actors::route_metrics m;
  m.breaker_state = 1;
  m.breaker_since_ms = 1'796'141'107'123;
  m.gauges[actors::route_gauge::in_flight] = 9;
  m.gauges[actors::route_gauge::concurrency_limit] = 16;
  m.rate_limit = 2.5;
  m.gauges[actors::route_gauge::rate_limit_waiting] = 3;
  m.gauges[actors::route_gauge::attempts_in_flight] = 4;
  m.gauges[actors::route_gauge::credentials_waiting] = 5;
  m.gauges[actors::route_gauge::paused_partitions] = 2;
  m.assigned = true;
  m.draining = true;
  m.operator_paused = true;
  m.broker_reachable = false;
  m.endpoint_blocked = true;
  m.endpoint_gone = true;
  m.consumer[consumer_counter::consumed] = 7;
  const auto s = snapshot_of("r", m);
  EXPECT_EQ(s.name, "r");
  EXPECT_EQ(s.breaker_state, 1);
  EXPECT_EQ(s.breaker_since_ms, 1'796'141'107'123);
  EXPECT_EQ(s.gauges[actors::route_gauge::in_flight], 9);
  EXPECT_EQ(s.gauges[actors::route_gauge::concurrency_limit], 16);
  EXPECT_DOUBLE_EQ(s.rate_limit, 2.5);
  EXPECT_EQ(s.gauges[actors::route_gauge::rate_limit_waiting], 3);
  EXPECT_EQ(s.gauges[actors::route_gauge::attempts_in_flight], 4);
  EXPECT_EQ(s.gauges[actors::route_gauge::credentials_waiting], 5);
  EXPECT_EQ(s.gauges[actors::route_gauge::paused_partitions], 2);
  EXPECT_TRUE(s.assigned);
  EXPECT_TRUE(s.draining);
  EXPECT_TRUE(s.operator_paused);
  EXPECT_FALSE(s.broker_reachable);
  EXPECT_TRUE(s.endpoint_blocked);
  EXPECT_TRUE(s.endpoint_gone);
  EXPECT_EQ(s.consumer[consumer_counter::consumed], 7U);
  // The histograms and topics are the endpoints' to set: the metrics alone do not name them.
  EXPECT_EQ(s.request_seconds, nullptr);
  EXPECT_TRUE(s.topic.empty());
}

TEST(AdminSnapshot, LoadsTheRoutersCountersAndItsRecordsByDestination) {
  actors::router_metrics m;
  m.produced = 3;
  m.produce_failures = 2;
  m.records_failing = 1;
  m.producer_rebuilds = 4;
  m.count_produced("t.dlq", "http_4xx");
  m.count_produced("t.dlq", "http_4xx");
  const auto s = snapshot_of(m);
  EXPECT_EQ(s.produced, 3U);
  EXPECT_EQ(s.produce_failures, 2U);
  EXPECT_EQ(s.records_failing, 1);
  EXPECT_EQ(s.producer_rebuilds, 4U);
  EXPECT_EQ((s.produced_by.at({"t.dlq", "http_4xx"})), 2U);
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
}  // namespace courier::admin
