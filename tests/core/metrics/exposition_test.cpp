#include "core/metrics/exposition.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace courier::metrics {
namespace {

TEST(Exposition, WritesHelpAndTypeOnceAndOneLinePerSample) {
  exposition e;
  e.family("courier_deliveries_total", "Deliveries by outcome.", family_type::counter);
  e.sample("courier_deliveries_total", {{"route", "shipments"}, {"outcome", "delivered"}},
           std::uint64_t{42});
  e.sample("courier_deliveries_total", {{"route", "shipments"}, {"outcome", "dead_lettered"}},
           std::uint64_t{0});
  EXPECT_EQ(e.text(),
            "# HELP courier_deliveries_total Deliveries by outcome.\n"
            "# TYPE courier_deliveries_total counter\n"
            "courier_deliveries_total{route=\"shipments\",outcome=\"delivered\"} 42\n"
            "courier_deliveries_total{route=\"shipments\",outcome=\"dead_lettered\"} 0\n");
}

TEST(Exposition, EscapesLabelValuesAndHelpAsTheFormatRequires) {
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  exposition e;
  e.family("x", "line one\nback\\slash", family_type::gauge);
  e.sample("x", {}, 1.5);
  EXPECT_EQ(e.text(), "# HELP x line one\\nback\\\\slash\n# TYPE x gauge\nx 1.5\n");
}

TEST(Exposition, FormatsFloatsTheWayPrometheusReadsThem) {
  EXPECT_EQ(format_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_value(std::nan("")), "NaN");
  EXPECT_EQ(format_value(3), "3");
  EXPECT_EQ(format_value(0.005), "0.005");
  EXPECT_EQ(format_value(0.1 + 0.2), "0.30000000000000004");
}

TEST(Histogram, RendersCumulativeBucketsSumAndCount) {
  histogram h{{0.01, 0.1, 1}};
  h.observe(0.005);
  h.observe(0.01);  // on a bound: counted in it (le is "less or equal")
  h.observe(0.5);
  h.observe(7);
  exposition e;
  h.render(e, "courier_request_seconds", {{"route", "r"}});
  EXPECT_EQ(e.text(),
            "courier_request_seconds_bucket{route=\"r\",le=\"0.01\"} 2\n"
            "courier_request_seconds_bucket{route=\"r\",le=\"0.1\"} 2\n"
            "courier_request_seconds_bucket{route=\"r\",le=\"1\"} 3\n"
            "courier_request_seconds_bucket{route=\"r\",le=\"+Inf\"} 4\n"
            "courier_request_seconds_sum{route=\"r\"} 7.515\n"
            "courier_request_seconds_count{route=\"r\"} 4\n");
  EXPECT_EQ(h.count(), 4U);
}

TEST(Histogram, RefusesBoundsThatAreNotIncreasing) {
  EXPECT_THROW(histogram({}), std::invalid_argument);
  EXPECT_THROW(histogram({0.1, 0.1}), std::invalid_argument);
  EXPECT_THROW(histogram({1, 0.5}), std::invalid_argument);
}

TEST(Histogram, LatencyBucketsAreThePrometheusDefaultsUpToTheCeiling) {
  // client_golang's DefBuckets (and the other client libraries' defaults) up to 5 s, then the
  // ceiling itself.
  EXPECT_EQ(latency_buckets(5.0),
            (std::vector<double>{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}));
  EXPECT_EQ(latency_buckets(4.0),
            (std::vector<double>{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 4}));
  EXPECT_EQ(format_value(latency_buckets(5.0)[2]), "0.025");
}

TEST(Histogram, LatencyBucketsContinueInTheSameStepsUpToAnHour) {
  const auto b = latency_buckets(3600.0);
  EXPECT_EQ(b, (std::vector<double>{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50,
                                    100, 250, 500, 1000, 2500, 3600}));
  EXPECT_NO_THROW(histogram{b});
}

TEST(Histogram, LatencyBucketsStayWithinTheBoundOfBucketsAndIncrease) {
  for (const double ceiling : {0.001, 0.005, 0.3, 30.0, 1e12}) {
    const auto b = latency_buckets(ceiling);
    EXPECT_LE(b.size(), histogram::max_buckets) << ceiling;
    EXPECT_DOUBLE_EQ(b.back(), ceiling);
    EXPECT_NO_THROW(histogram{b}) << ceiling;
  }
}

}  // namespace
}  // namespace courier::metrics
