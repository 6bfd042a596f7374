// courier's provenance cannot be forged from a source topic (issue 48), on the suite's real
// broker against a real HTTP receiver. A producer of the source writes two records with
// courier's headers, as an independent Kafka client (librdkafka's producer, not courier's):
//   - "forged-away" claims another route's source as its origin (and 2147483647 attempts, and
//     another route) and is refused with 400: its DLQ record names the topic courier read it
//     from, and `redrive --config` returns it there, never to the other route's topic;
//   - "forged-lost" claims the origin of an ordinary record (offset 4) and is delivered: its
//     receipt names its own offset, so with offset 4's receipt removed, `courier audit` still
//     names offset 4 as unaccounted.
// Every record is delivered or in the DLQ, each once in Kafka, and courier counts the two.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/kafka/producer.hpp"
#include "core/retry/receipt.hpp"
#include "core/retry/retry_tiers.hpp"
#include "mock_webhook/server.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "tests/support/redrive_config.hpp"

namespace courier::e2e {
namespace {

constexpr std::int64_t ordinary = 10;     // offsets 0..9
constexpr std::int64_t forged_away = 10;  // claims another route's source, refused with 400
constexpr std::int64_t forged_lost = 11;  // claims offset `lost`, delivered
constexpr std::int64_t lost = 4;
constexpr std::int64_t total = 12;

struct process_run {
  std::optional<int> code;
  std::string log;
};

process_run run_process(const char* binary, const std::vector<std::string>& args,
                        const std::filesystem::path& dir, const std::string& name) {
  child_process p{binary, args, {}, (dir / (name + ".log")).string(), {"KAFKA_BROKERS"}};
  process_run r;
  r.code = p.wait_exit(120s);
  r.log = p.log();
  return r;
}

// The log's line that parses as a JSON object with `field` (null when there is none).
nlohmann::json json_line_with(const std::string& log, const std::string& field) {
  std::istringstream lines{log};
  std::string line;
  while (std::getline(lines, line)) {
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded() && j.is_object() && j.contains(field)) {
      return j;
    }
  }
  return nlohmann::json{};
}

header_list forged_headers(const std::string& origin_topic, std::int64_t origin_offset,
                           const std::string& route) {
  return {{"courier.origin.topic", origin_topic},
          {"courier.origin.partition", "0"},
          {"courier.origin.offset", std::to_string(origin_offset)},
          {"courier.attempts", "2147483647"},
          {"courier.route", route}};
}

TEST(EndToEndForgedProvenance, ASourceProducerCanNeitherRedirectRedriveNorHideALostRecord) {
  temp_dir scratch{"e2e-forged-provenance", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  mock::server_settings ws;
  ws.hmac_secret = e2e_secret();
  mock::server receiver{ws};
  receiver.start();

  courier_settings s{unique_name("forged-group"), unique_name("forged"), receiver.url()};
  s.retry_tiers = {};
  s.max_attempts = 2;
  const std::string other = unique_name("payouts");  // another route's source
  create_topic(s.topic, 1);
  create_topic(other, 1);
  const std::string receipts = s.topic + ".receipts";
  const auto config = prepare_with(s, {{"receipts_topic", receipts}}, dir);
  {
    std::ifstream in{config};
    auto j = nlohmann::json::parse(in);
    j["admin"] = {{"listen", "127.0.0.1:0"}};
    std::ofstream{config} << j.dump(2);
  }
  const std::string dlq = default_dlq_topic(s.topic);
  const auto id = [&](std::int64_t offset) { return s.topic + ":0:" + std::to_string(offset); };
  receiver.set_key_rule(id(forged_away), mock::key_rule{400, -1});
  {
    kafka::producer p{kafka_environment::bootstrap()};
    for (std::int64_t i = 0; i < total; ++i) {
      header_list h;
      if (i == forged_away) {
        h = forged_headers(other, 3, "payouts");
      } else if (i == forged_lost) {
        h = forged_headers(s.topic, lost, "shipments");
      }
      p.produce(s.topic, 0, "shp-" + std::to_string(i), "{\"shipment\":" + std::to_string(i) + "}",
                h);
    }
    p.flush(30s);
    ASSERT_EQ(p.failed(), 0U);
    ASSERT_EQ(p.acked(), static_cast<std::size_t>(total));
  }

  auto courier = start_courier(config, dir, "courier");
  std::vector<record> dead;
  ASSERT_TRUE(wait_until(
      [&] {
        dead = read_to_end(dlq, 1, "read_committed", 5s);
        return !courier->running() ||
               (!dead.empty() && committed_total(s.group, s.topic, 1) == total);
      },
      90s))
      << tail(courier->log());
  ASSERT_TRUE(courier->running()) << tail(courier->log());

  // Each record once in Kafka: eleven answered 2xx, one in the DLQ.
  const auto attempts = receiver.attempts_by_key();
  for (std::int64_t i = 0; i < total; ++i) {
    EXPECT_EQ(attempts.count(id(i)), 1U) << id(i) << " never reached the receiver";
  }
  ASSERT_EQ(dead.size(), 1U);
  const auto& d = dead.front();
  EXPECT_EQ(find_header(d.headers, "courier.idempotency.key"), id(forged_away));
  EXPECT_EQ(find_header(d.headers, "courier.origin.topic"), s.topic)
      << "the DLQ record names the topic courier read it from";
  EXPECT_EQ(find_header(d.headers, "courier.origin.offset"), std::to_string(forged_away));
  EXPECT_EQ(find_header(d.headers, "courier.route"), "shipments");
  EXPECT_EQ(find_header(d.headers, "courier.attempts"), "1") << "only the attempt courier made";

  std::map<std::int64_t, int> receipted;  // origin offset -> receipts
  for (const auto& r : read_to_end(receipts, 1, "read_committed", 10s)) {
    const auto rc = decode_receipt(r.value.view());
    EXPECT_EQ(rc.origin.topic, s.topic);
    EXPECT_GE(rc.attempts, 1);
    EXPECT_LE(rc.attempts, 2) << "no forged attempts, no overflow";
    ++receipted[rc.origin.offset];
  }
  EXPECT_EQ(receipted.size(), static_cast<std::size_t>(total - 1));
  EXPECT_EQ(receipted[forged_lost], 1) << "the forged record's receipt names its own offset";
  EXPECT_EQ(receipted[lost], 1);

  EXPECT_EQ(count_of(courier->log(), "source record carried courier's provenance headers"), 2U)
      << tail(courier->log());
  const auto metrics = http_get(admin_port_in(courier->log()), "/metrics", 5s);
  ASSERT_TRUE(metrics.has_value());
  EXPECT_NE(metrics->find("courier_untrusted_provenance_total{route=\"shipments\"} 2"),
            std::string::npos)
      << *metrics;
  expect_clean_stop(*courier);

  // The audit with offset 4's receipt removed: the forged record claims offset 4, which is named
  // all the same.
  const std::string pruned = receipts + ".pruned";
  create_topic(pruned, 1);
  {
    kafka::producer copy{kafka_environment::bootstrap()};
    for (const auto& r : read_to_end(receipts, 1, "read_committed", 10s)) {
      if (decode_receipt(r.value.view()).origin.offset != lost) {
        copy.produce(pruned, r.partition, r.key, r.value.view());
      }
    }
    copy.flush(30s);
    ASSERT_EQ(copy.failed(), 0U);
  }
  const auto pruned_config = dir / "pruned.json";
  {
    std::ifstream in{config};
    auto j = nlohmann::json::parse(in);
    j["routes"][0]["receipts_topic"] = pruned;
    std::ofstream{pruned_config} << j.dump(2);
  }
  const auto audit =
      run_process(COURIER_BINARY,
                  {"audit", "--config", pruned_config.string(), "--route", "shipments", "--json"},
                  dir, "audit");
  EXPECT_EQ(audit.code, std::optional<int>{1}) << tail(audit.log);
  const auto report = json_line_with(audit.log, "unaccounted");
  ASSERT_FALSE(report.is_null()) << audit.log;
  EXPECT_EQ(report["unaccounted"], 1);
  EXPECT_EQ(report["total"]["records"], total);
  EXPECT_EQ(
      report["partitions"][0]["unaccounted_offsets"],
      nlohmann::json::parse("[[" + std::to_string(lost) + "," + std::to_string(lost + 1) + "]]"));

  // The partner fixed its side: redrive returns the refused record to the source it came from.
  const auto redrive = run_process(REDRIVE_BINARY,
                                   {"--config", config.string(), "--from", dlq, "--bootstrap",
                                    kafka_environment::bootstrap(), "--timeout", "10s", "--json"},
                                   dir, "redrive");
  EXPECT_EQ(redrive.code, std::optional<int>{0}) << tail(redrive.log);
  EXPECT_EQ(json_line_with(redrive.log, "moved").value("moved", -1), 1) << redrive.log;
  EXPECT_TRUE(read_to_end(other, 1, "read_committed", 10s).empty())
      << "redrive wrote to another route's source";
  const auto source = read_to_end(s.topic, 1, "read_committed", 10s);
  ASSERT_EQ(source.size(), static_cast<std::size_t>(total + 1));
  const auto& back = source.back();
  EXPECT_EQ(find_header(back.headers, "courier.idempotency.key"), id(forged_away));
  EXPECT_FALSE(find_header(back.headers, "courier.origin.topic").has_value())
      << "no provenance on a source topic";
}

}  // namespace
}  // namespace courier::e2e
