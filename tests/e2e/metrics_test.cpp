// /metrics against what really happened: one courier on the suite's real broker delivers to a
// receiver that answers 30% 503s, rejects 5% of the records with 400 and goes through an
// outage (100% 503s) that opens the breaker and pauses the partitions. Scrapes taken during
// the 503s and during the outage pass Prometheus' own `promtool check metrics`, and at the end
// every counter agrees with an independent count: the receiver's /stats, the records in the
// retry-tier and DLQ topics (by courier.error.class), and the breaker changes in the log.

#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/retry/retry_tiers.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "tests/support/metrics_text.hpp"

namespace courier::e2e {
namespace {

using courier::testing::sample;
using courier::testing::samples_of;
using courier::testing::sum_of;

std::vector<sample> scrape(std::uint16_t admin, std::string* text = nullptr) {
  const auto body = http_get(admin, "/metrics", 2s);
  if (text != nullptr) {
    *text = body.value_or("");
  }
  return body ? samples_of(*body) : std::vector<sample>{};
}

std::uint64_t count(const std::vector<sample>& all, const std::string& name,
                    const std::map<std::string, std::string>& match = {}) {
  return static_cast<std::uint64_t>(sum_of(all, name, match));
}

// Records of a topic by their courier.error.class header.
std::map<std::string, std::uint64_t> by_error_class(const std::vector<record>& records) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& r : records) {
    ++out[std::string{find_header(r.headers, "courier.error.class").value_or("(none)")}];
  }
  return out;
}

// The produced-by-destination counters of one topic, by error class.
std::map<std::string, std::uint64_t> produced_to(const std::vector<sample>& all,
                                                 const std::string& topic) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& s : all) {
    if (s.name == "courier_retry_records_produced_by_destination_total" &&
        s.labels.at("topic") == topic && s.value > 0) {
      out[s.labels.at("error_class")] += static_cast<std::uint64_t>(s.value);
    }
  }
  return out;
}

TEST(EndToEndMetrics, ScrapesUnderChaosPassPromtoolAndEveryCounterMatchesTheReceiverAndTopics) {
  constexpr std::uint64_t n = 3000;
  constexpr int partitions = 4;
  const temp_dir scratch{"e2e-metrics", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  webhook w{dir, /*latency_ms=*/5, /*fail_rate_503=*/0.3, /*fail_rate_400=*/0.05};
  courier_settings s{unique_name("metrics-group"), unique_name("metrics"), w.url()};
  s.max_attempts = 3;  // 0.3^3 of the records reach a tier
  create_topic(s.topic, partitions);
  seed(s.topic, 0, n);
  const auto config = prepare_with(
      s, {{"breaker", {{"trip_after", 5}, {"open_timeout", "500ms"}}}, {"pause_after", "500ms"}},
      dir);
  const std::vector<std::string> tiers{tier_topic(s.topic, s.retry_tiers[0]),
                                       tier_topic(s.topic, s.retry_tiers[1])};
  const auto dlq = default_dlq_topic(s.topic);
  const auto set_chaos = [&](const nlohmann::json& chaos) {
    ASSERT_EQ(http_post(port_of(w), "/chaos", chaos.dump(), {}, 2s), 200) << chaos;
  };
  const nlohmann::json usual{{"fail_rate_503", 0.3}, {"fail_rate_400", 0.05}, {"latency_ms", 5}};

  auto courier = start_courier(config, dir, "courier");
  ASSERT_TRUE(wait_delivered(w, n / 3, 60s, {courier.get()})) << tail(courier->log());
  const auto admin = admin_port_in(courier->log());
  ASSERT_GT(admin, 0) << tail(courier->log());

  // (a) promtool accepts a scrape taken while 30% of the answers are 503s ...
  std::string text;
  scrape(admin, &text);
  EXPECT_EQ(promtool_complaints(text, dir / "scrape-503s.prom"), "") << text;

  // ... and one taken in the outage, with the breaker open and the partitions paused.
  set_chaos({{"fail_rate_503", 1.0}});
  EXPECT_TRUE(wait_until(
      [&] {
        const auto now = scrape(admin, &text);
        return count(now, "courier_breaker_transitions_total", {{"to", "open"}}) > 0 &&
               count(now, "courier_partitions_paused") > 0;
      },
      30s))
      << text;
  EXPECT_EQ(promtool_complaints(text, dir / "scrape-outage.prom"), "") << text;
  set_chaos(usual);

  // Settled: every record delivered or dead-lettered and nothing in flight, by the metrics
  // (what they say is checked against independent counts below).
  std::vector<sample> end;
  const bool settled = wait_until(
      [&] {
        end = scrape(admin, &text);
        return count(end, "courier_deliveries_total", {{"outcome", "delivered"}}) +
                       count(end, "courier_deliveries_total", {{"outcome", "dead_lettered"}}) >=
                   n &&
               count(end, "courier_in_flight") == 0;
      },
      120s);
  ASSERT_TRUE(settled) << text << "\n" << w.stats().raw << "\n" << tail(courier->log());
  const auto receiver = w.settled_stats();
  end = scrape(admin, &text);
  EXPECT_EQ(promtool_complaints(text, dir / "scrape-end.prom"), "") << text;

  // (b) The receiver's counts: every request it saw is an attempt, answered in its class.
  const auto answers = [&](const char* cls) {
    return count(end, "courier_delivery_answers_total", {{"class", cls}});
  };
  EXPECT_EQ(count(end, "courier_delivery_attempts_total"), receiver.total) << receiver.raw;
  EXPECT_EQ(answers("2xx"), receiver.ok + receiver.duplicates) << receiver.raw;
  EXPECT_EQ(answers("5xx"), receiver.fail_503) << receiver.raw;
  EXPECT_EQ(answers("4xx"), receiver.fail_400 + receiver.fail_401) << receiver.raw;
  EXPECT_EQ(answers("none"), receiver.fail_timeout) << receiver.raw;
  EXPECT_EQ(count(end, "courier_deliveries_total", {{"outcome", "delivered"}}),
            receiver.ok + receiver.duplicates)
      << receiver.raw;
  EXPECT_GT(receiver.fail_400, 0U) << receiver.raw;

  // (c) The topics' counts: what the metrics say went to each tier and to the DLQ is there,
  // class by class, and each record taken from a tier was consumed once more.
  std::uint64_t tier_records = 0;
  for (const auto& tier : tiers) {
    const auto records = read_to_end(tier, partitions, "read_committed", 30s);
    tier_records += records.size();
    EXPECT_EQ(produced_to(end, tier), by_error_class(records)) << tier << "\n" << text;
  }
  const auto dead = read_to_end(dlq, partitions, "read_committed", 30s);
  EXPECT_EQ(produced_to(end, dlq), by_error_class(dead)) << text;
  EXPECT_EQ(count(end, "courier_deliveries_total", {{"outcome", "retried"}}), tier_records) << text;
  EXPECT_EQ(count(end, "courier_deliveries_total", {{"outcome", "dead_lettered"}}), dead.size())
      << text;
  EXPECT_GT(tier_records, 0U) << "no record reached a tier";
  EXPECT_EQ(count(end, "courier_records_consumed_total") -
                count(end, "courier_records_rewound_duplicates_total"),
            n + tier_records)
      << text;
  EXPECT_EQ(receiver.ok + dead.size(), n) << receiver.raw;
  // The fetch latency counts each source record once, and no tier record.
  EXPECT_EQ(count(end, "courier_consumer_fetch_latency_seconds_count"), n) << text;
  std::cout << "receiver " << receiver.raw << "; " << tier_records << " records through the tiers, "
            << dead.size() << " in the DLQ; "
            << count(end, "courier_breaker_transitions_total", {{"to", "open"}})
            << " breaker openings" << std::endl;

  // (d) The breaker's transitions are the state changes it logged.
  const auto log = courier->log();
  EXPECT_EQ(count(end, "courier_breaker_transitions_total"),
            count_of(log, R"("event":"breaker state change")"))
      << text;
  EXPECT_EQ(count(end, "courier_breaker_transitions_total", {{"to", "open"}}),
            count_of(log, R"("to":"open")"))
      << text;

  const auto code = terminate(*courier);
  ASSERT_TRUE(code.has_value()) << tail(courier->log());
  EXPECT_EQ(*code, 0) << tail(courier->log());
}

}  // namespace
}  // namespace courier::e2e
