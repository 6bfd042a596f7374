// Receipts (routes[].receipts_topic, issue 34) on the suite's real broker against nginx
// (tests/e2e/nginx_receiver.hpp: 20% 503s, 2% 400s, every answer with an X-Request-Id), with a
// SIGKILL and a restart in the middle: the receipts topic holds one receipt per record nginx
// answered 2xx, keyed by its Idempotency-Key, naming its origin and nginx's request id for that
// answer; a key has a second receipt only where nginx answered it 2xx twice, and a record in
// the DLQ has none. All 20,000 records are delivered or in the DLQ, each once in Kafka.
//
// Then `courier audit` proves it from Kafka alone: 0 unaccounted, every record delivered or in
// the DLQ with the DLQ's counts by class; and on a copy of the receipts without one record's
// receipt (that record removed from every destination), it names that record by offset and
// exits 1.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/kafka/producer.hpp"
#include "core/retry/receipt.hpp"
#include "core/retry/retry_tiers.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "tests/e2e/nginx_receiver.hpp"
#include "tests/e2e/partner_contract_support.hpp"

namespace courier::e2e {
namespace {

constexpr std::size_t records = 20000;
constexpr int partitions = 8;

// `courier audit` of the suite's route, as a process; stdout and stderr go to one log.
struct audit_run {
  std::optional<int> code;
  std::string log;
};
audit_run run_audit(const std::filesystem::path& config, const std::filesystem::path& dir,
                    const std::string& name, bool json = true,
                    const std::vector<std::string>& range = {}) {
  std::vector<std::string> args{"audit", "--config", config.string(), "--route", "shipments"};
  args.insert(args.end(), range.begin(), range.end());
  if (json) {
    args.emplace_back("--json");
  }
  child_process run{COURIER_BINARY, args, {}, (dir / (name + ".log")).string(), {"KAFKA_BROKERS"}};
  audit_run r;
  r.code = run.wait_exit(120s);
  r.log = run.log();
  return r;
}

// The log's line that parses as a JSON object with "unaccounted" (null when there is none).
nlohmann::json json_line_of(const std::string& log) {
  std::istringstream lines{log};
  std::string line;
  while (std::getline(lines, line)) {
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded() && j.is_object() && j.contains("unaccounted")) {
      return j;
    }
  }
  return nlohmann::json{};
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in{path};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream{path} << text;
}

std::string key_of(const record_position& p) {
  return p.topic + ":" + std::to_string(p.partition) + ":" + std::to_string(p.offset);
}

TEST(EndToEndReceipts, OneReceiptPerDeliveryThroughASigkill) {
  temp_dir scratch{"e2e-receipts", temp_dir::keep_if_failed};
  nginx_receiver nginx{scratch.path(), /*percent_503=*/20, /*latency_ms=*/0, std::nullopt,
                       /*percent_400=*/2};
  courier_settings s{unique_name("receipts-group"), unique_name("receipts"), nginx.url(),
                     /*max_in_flight=*/64, 100};
  create_topic(s.topic, partitions);
  const auto seeded = seed_traced(s.topic, records);
  const std::string receipts = s.topic + ".receipts";
  const auto config = prepare_with(
      s, {{"receipts_topic", receipts}, {"receipts", {{"response_headers", {"X-Request-Id"}}}}},
      scratch.path());
  const auto dlq = default_dlq_topic(s.topic);

  auto first = start_courier(config, scratch.path(), "courier-a");
  ASSERT_TRUE(wait_until(
      [&] { return delivered_keys(nginx.arrivals()).size() >= records / 4 || !first->running(); },
      120s))
      << tail(first->log());
  ASSERT_TRUE(first->running()) << tail(first->log());
  first->kill_now();
  auto second = start_courier(config, scratch.path(), "courier-b");
  ASSERT_TRUE(wait_all_done(nginx, records, dlq, partitions, 180s, {second.get()}))
      << tail(second->log());
  ASSERT_TRUE(committed_reaches(s.group, s.topic, partitions, static_cast<std::int64_t>(records)));

  // wait_all_done counts the DLQ's records; a record in it twice (below) ends that wait before
  // the last deliveries were answered: wait for every record by key.
  std::vector<std::string> dead;
  ASSERT_TRUE(wait_until(
      [&] {
        dead = dlq_keys(dlq, partitions);
        const std::set<std::string> dead_once{dead.begin(), dead.end()};
        return delivered_keys(nginx.arrivals()).size() + dead_once.size() >= records;
      },
      60s));
  const auto& log = nginx.arrivals();
  // The at-least-once floor of the DLQ: a record dead-lettered in the moment before the SIGKILL,
  // its offset not committed yet, is dead-lettered again by the next owner (at most what was in
  // flight).
  EXPECT_GT(expect_each_record_once(log, seeded, dead, records / 2, /*max_dead_duplicates=*/64), 0U)
      << "2% 400s: some records end in the DLQ";

  // nginx's 2xx answers: per key, how many and with which request ids.
  std::map<std::string, int> answered;
  std::map<std::string, std::set<std::string>> request_ids;
  for (const auto& a : log) {
    if (a.status >= 200 && a.status < 300) {
      ++answered[a.key];
      request_ids[a.key].insert(a.request_id);
    }
  }
  std::map<std::string, int> receipted;
  std::size_t twice = 0;
  for (const auto& r : read_to_end(receipts, partitions, "read_uncommitted", 30s)) {
    ASSERT_TRUE(r.key) << "a receipt without a key";
    const auto& key = *r.key;
    const auto value = std::string{r.value.view()};
    receipt rc;
    ASSERT_NO_THROW(rc = decode_receipt(value)) << value;
    EXPECT_EQ(key_of(rc.origin), key) << "keyed by the Idempotency-Key of its origin";
    EXPECT_EQ(rc.route, "shipments");
    EXPECT_GE(rc.status, 200);
    EXPECT_LT(rc.status, 300);
    EXPECT_GE(rc.attempts, 1);
    EXPECT_GE(rc.delivered_ms, rc.first_attempt_ms);
    EXPECT_FALSE(rc.instance.empty());
    ASSERT_EQ(rc.response_headers.size(), 1U) << value;
    EXPECT_EQ(rc.response_headers[0].first, "X-Request-Id");
    if (request_ids[key].count(rc.response_headers[0].second) != 1U) {
      std::string lines;
      for (const auto& a : log) {
        if (a.key == key) {
          lines +=
              "\n  " + std::to_string(a.ms) + " " + std::to_string(a.status) + " " + a.request_id;
        }
      }
      ADD_FAILURE() << key << ": the request id of none of nginx's 2xx answers to it: " << value
                    << "; nginx:" << lines;
    }
    twice += ++receipted[key] == 2 ? 1 : 0;
  }
  // Every 2xx has its receipt, but for one answered in the moment before the SIGKILL, whose
  // record came again; nothing else has one.
  for (const auto& [key, times] : answered) {
    ASSERT_EQ(receipted.count(key), 1U) << "answered 2xx, no receipt: " << key;
    EXPECT_LE(receipted[key], times) << key << ": more receipts than 2xx answers";
  }
  for (const auto& [key, n] : receipted) {
    EXPECT_EQ(answered.count(key), 1U) << "a receipt of a record never answered 2xx: " << key;
  }
  for (const auto& key : dead) {
    EXPECT_EQ(receipted.count(key), 0U) << "a dead-lettered record has a receipt: " << key;
  }
  EXPECT_EQ(receipted.size(), answered.size());
  std::cout << receipted.size() << " records with a receipt, " << twice << " with two" << std::endl;
  expect_clean_stop(*second);

  // courier audit, from Kafka alone.
  // The DLQ's records by class, each record once (audit counts records, not their copies).
  std::map<std::string, std::uint64_t> dlq_by_class;
  std::set<std::string> dead_counted;
  for (const auto& r : read_to_end(dlq, partitions, "read_committed", 30s)) {
    if (dead_counted
            .insert(std::string{find_header(r.headers, "courier.idempotency.key").value_or("")})
            .second) {
      ++dlq_by_class[std::string{find_header(r.headers, "courier.error.class").value_or("(none)")}];
    }
  }
  const auto audited = run_audit(config, scratch.path(), "audit");
  ASSERT_EQ(audited.code, std::optional<int>{0}) << tail(audited.log);
  const auto report = json_line_of(audited.log);
  ASSERT_FALSE(report.is_null()) << audited.log;
  EXPECT_EQ(report["unaccounted"], 0);
  EXPECT_EQ(report["total"]["records"], records);
  EXPECT_EQ(report["total"]["delivered"], receipted.size());
  EXPECT_EQ(report["total"]["dead_lettered"], nlohmann::json(dlq_by_class));
  EXPECT_EQ(report["total"]["waiting"], 0);
  EXPECT_EQ(report["total"]["pending"], 0);
  EXPECT_EQ(report["partitions"].size(), static_cast<std::size_t>(partitions));

  // One delivered record's receipt removed: the record is in no destination now.
  const std::string pruned = receipts + ".pruned";
  create_topic(pruned, partitions);
  std::optional<record_position> removed;
  {
    kafka::producer copy{kafka_environment::bootstrap()};
    for (const auto& r : read_to_end(receipts, partitions, "read_uncommitted", 30s)) {
      const auto rc = decode_receipt(r.value.view());
      if (!removed && receipted[*r.key] == 1) {
        removed = rc.origin;
        continue;
      }
      copy.produce(pruned, r.partition, r.key, r.value.view());
    }
    copy.flush(30s);
    ASSERT_EQ(copy.failed(), 0U);
  }
  ASSERT_TRUE(removed.has_value());
  const auto pruned_config = scratch.path() / "pruned.json";
  {
    auto j = nlohmann::json::parse(read_file(config));
    j["routes"][0]["receipts_topic"] = pruned;
    write_file(pruned_config, j.dump(2));
  }
  const auto missing = run_audit(pruned_config, scratch.path(), "audit-pruned");
  EXPECT_EQ(missing.code, std::optional<int>{1}) << tail(missing.log);
  const auto gap = json_line_of(missing.log);
  ASSERT_FALSE(gap.is_null()) << missing.log;
  EXPECT_EQ(gap["unaccounted"], 1);
  const auto& part = gap["partitions"][static_cast<std::size_t>(removed->partition)];
  EXPECT_EQ(part["unaccounted_offsets"],
            nlohmann::json::array({nlohmann::json::array({removed->offset, removed->offset + 1})}))
      << "removed " << key_of(*removed) << "; " << part.dump();
  // The same, for a person: the offset is named.
  const auto text = run_audit(pruned_config, scratch.path(), "audit-pruned-text", /*json=*/false);
  EXPECT_EQ(text.code, std::optional<int>{1});
  std::cout << text.log << std::flush;

  // A range: the removed record's offset in every partition (a bare offset), and the same range
  // by partition; and a time: everything seeded in the last hour.
  const auto at = std::to_string(removed->offset);
  const auto one = run_audit(pruned_config, scratch.path(), "audit-one", true,
                             {"--from", at, "--until", std::to_string(removed->offset + 1)});
  EXPECT_EQ(one.code, std::optional<int>{1}) << tail(one.log);
  const auto narrow = json_line_of(one.log);
  EXPECT_EQ(narrow["total"]["records"], partitions) << narrow.dump();
  EXPECT_EQ(narrow["unaccounted"], 1) << narrow.dump();
  const auto p = std::to_string(removed->partition);
  const auto other = std::to_string((removed->partition + 1) % partitions);
  const auto by_partition =
      run_audit(pruned_config, scratch.path(), "audit-by-partition", true,
                {"--from", p + ":" + at + "," + other + ":0", "--until",
                 p + ":" + std::to_string(removed->offset + 1) + "," + other + ":0"});
  const auto bp = json_line_of(by_partition.log);
  EXPECT_EQ(by_partition.code, std::optional<int>{1}) << tail(by_partition.log);
  EXPECT_EQ(bp["partitions"][static_cast<std::size_t>(removed->partition)]["records"], 1)
      << bp.dump();
  EXPECT_EQ(
      bp["partitions"][static_cast<std::size_t>((removed->partition + 1) % partitions)]["records"],
      0)
      << bp.dump();
  const auto recent = run_audit(pruned_config, scratch.path(), "audit-recent", true,
                                {"--from", "1h", "--until", "2099-01-01T00:00:00Z"});
  EXPECT_EQ(recent.code, std::optional<int>{1}) << tail(recent.log);
  EXPECT_EQ(json_line_of(recent.log)["total"]["records"], records) << recent.log;

  // A receipts topic that does not exist proves nothing: a usage error naming it, not a verdict.
  const auto nowhere_config = scratch.path() / "nowhere.json";
  {
    auto j = nlohmann::json::parse(read_file(config));
    j["routes"][0]["receipts_topic"] = receipts + ".nowhere";
    write_file(nowhere_config, j.dump(2));
  }
  const auto nowhere = run_audit(nowhere_config, scratch.path(), "audit-nowhere");
  EXPECT_EQ(nowhere.code, std::optional<int>{2}) << tail(nowhere.log);
  EXPECT_NE(nowhere.log.find(receipts + ".nowhere does not exist"), std::string::npos)
      << nowhere.log;
  EXPECT_NE(text.log.find("unaccounted in partition " + std::to_string(removed->partition) + ": " +
                          std::to_string(removed->offset)),
            std::string::npos)
      << text.log;
}

}  // namespace
}  // namespace courier::e2e
