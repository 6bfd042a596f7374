#include "core/retry/provenance.hpp"
#include "tests/redrive/dlq_stand.hpp"
#include "core/redrive/ledger.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

namespace courier::redrive::test {
namespace {

std::string dlq_coordinates(int i) { return ledger_key({dlq_stand::dlq, i % 2, i / 2}); }

std::set<std::string> keys_of(const std::vector<record>& records) {
  std::set<std::string> keys;
  for (const auto& r : records) {
    keys.insert(r.key.value_or("(null)"));
  }
  return keys;
}

TEST(Redrive, MovesEachDlqRecordOnceWithKeyValueAndIdempotencyKey) {
  dlq_stand stand;
  stand.park(parked_specs(20));
  const run_result r = stand.run({"--json"});
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("moved"), 20);

  const auto target = stand.read_all(dlq_stand::origin);
  ASSERT_EQ(target.size(), 20U);
  const auto counts = count_by_source(target);
  ASSERT_EQ(counts.size(), 20U);
  for (const auto& rec : target) {
    const std::string key = rec.key.value_or("");
    const int i = std::stoi(key.substr(4));
    EXPECT_EQ(counts.at(dlq_coordinates(i)), 1);
    EXPECT_EQ(find_header(rec.headers, "courier.redrive.from"), dlq_coordinates(i));
    EXPECT_EQ(rec.value, "value-of-" + key);
    EXPECT_EQ(rec.partition, i % 2) << "returns to its origin partition";
    EXPECT_EQ(
        find_header(rec.headers, "courier.idempotency.key"),
        std::string{dlq_stand::origin} + ":" + std::to_string(i % 2) + ":" + std::to_string(i / 2));
    EXPECT_EQ(find_header(rec.headers, "content-type"), "application/json");
    EXPECT_EQ(find_header(rec.headers, "courier.redrive.count"), "1");
    EXPECT_TRUE(find_header(rec.headers, "courier.redrive.at"));
    for (const auto& [name, value] : rec.headers) {
      // A source topic carries no provenance of courier's: courier would not trust it there.
      EXPECT_FALSE(is_provenance_header(name)) << name;
    }
  }
  EXPECT_EQ(stand.read_all(dlq_stand::ledger_topic).size(), 20U);
  EXPECT_EQ(stand.read_all(dlq_stand::dlq).size(), 20U) << "the DLQ is left as it was";
}

TEST(Redrive, ASecondRunPublishesNothing) {
  dlq_stand stand;
  stand.park(parked_specs(12));
  ASSERT_EQ(stand.run({}).code, 0);
  const run_result again = stand.run({"--json"});
  ASSERT_EQ(again.code, 0) << again.err;
  const auto summary = nlohmann::json::parse(again.out);
  EXPECT_EQ(summary.at("moved"), 0);
  EXPECT_EQ(summary.at("already_redriven"), 12);
  const auto counts = count_by_source(stand.read_all(dlq_stand::origin));
  EXPECT_EQ(counts.size(), 12U);
  for (const auto& [from, n] : counts) {
    EXPECT_EQ(n, 1) << from;
  }
}

TEST(Redrive, FiltersSelectExactlyTheRightRecordsAndLeaveTheRestForLater) {
  dlq_stand stand;
  const std::int64_t now = wall_now_ms();
  auto all = parked_specs(12);
  for (int i = 0; i < 12; ++i) {
    all[i].error_class = i % 3 == 0 ? "http_503" : (i % 3 == 1 ? "http_4xx" : "timeout");
    all[i].failed_at_ms = now - (i < 6 ? 3'600'000 * 3 : 60'000);  // 3h ago or 1m ago
  }
  stand.park(all);

  ASSERT_EQ(stand.run({"--error-class", "http_503"}).code, 0);
  EXPECT_EQ(keys_of(stand.read_all(dlq_stand::origin)),
            (std::set<std::string>{"key-0", "key-3", "key-6", "key-9"}));

  ASSERT_EQ(stand.run({"--error-class", "timeout", "--origin-partition", "1"}).code, 0);
  EXPECT_EQ(keys_of(stand.read_all(dlq_stand::origin)),
            (std::set<std::string>{"key-0", "key-3", "key-6", "key-9", "key-5", "key-11"}));

  ASSERT_EQ(stand.run({"--key", "key-1"}).code, 0);
  ASSERT_EQ(stand
                .run({"--since", "2026-01-01T00:00:00Z", "--until", "1h", "--origin-topic",
                      dlq_stand::origin})
                .code,
            0);  // 3h ago: 0..5, of which 0, 3, 5, 1 moved already: 2 and 4
  EXPECT_EQ(keys_of(stand.read_all(dlq_stand::origin)),
            (std::set<std::string>{"key-0", "key-1", "key-2", "key-3", "key-4", "key-5", "key-6",
                                   "key-9", "key-11"}));

  const run_result limited = stand.run({"--limit", "2", "--json"});
  ASSERT_EQ(limited.code, 0) << limited.err;
  EXPECT_EQ(nlohmann::json::parse(limited.out).at("moved"), 2);
  ASSERT_EQ(stand.run({}).code, 0);
  const auto counts = count_by_source(stand.read_all(dlq_stand::origin));
  EXPECT_EQ(counts.size(), 12U);
  for (const auto& [from, n] : counts) {
    EXPECT_EQ(n, 1) << from;
  }
}

TEST(Redrive, DryRunMovesNothing) {
  dlq_stand stand;
  stand.park(parked_specs(6));
  const run_result r = stand.run({"--dry-run", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary.at("would_move"), 6);
  EXPECT_EQ(summary.at("moved"), 0);
  EXPECT_EQ(summary.at("records").size(), 6U);
  EXPECT_TRUE(stand.read_all(dlq_stand::origin).empty());
  EXPECT_TRUE(stand.read_all(dlq_stand::ledger_topic).empty());
}

TEST(Redrive, LoopGuardRefusesAtTheLimitAndForceOverrides) {
  dlq_stand stand;
  auto all = parked_specs(2);
  all[0].extra_headers = {{"courier.redrive.count", "3"}};
  all[1].extra_headers = {{"courier.redrive.count", "2"}};
  stand.park(all);
  const run_result r = stand.run({"--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary.at("refused"), 1);
  EXPECT_EQ(summary.at("moved"), 1);
  auto target = stand.read_all(dlq_stand::origin);
  ASSERT_EQ(target.size(), 1U);
  EXPECT_EQ(target[0].key, "key-1");
  EXPECT_EQ(find_header(target[0].headers, "courier.redrive.count"), "3");

  ASSERT_EQ(stand.run({"--force"}).code, 0);
  target = stand.read_all(dlq_stand::origin);
  ASSERT_EQ(target.size(), 2U);
  const auto forced = std::find_if(target.begin(), target.end(),
                                   [](const record& rec) { return rec.key == "key-0"; });
  ASSERT_NE(forced, target.end());
  EXPECT_EQ(find_header(forced->headers, "courier.redrive.count"), "4");
}

TEST(Redrive, ListAndStatsMatchTheDlq) {
  dlq_stand stand;
  const std::int64_t now = wall_now_ms();
  constexpr std::int64_t hour = 3'600'000;
  auto all = parked_specs(8);
  const std::int64_t ages[] = {10'000,   10'000,    2 * hour,       2 * hour,
                               2 * hour, 48 * hour, 30 * 24 * hour, 40 * 24 * hour};
  for (int i = 0; i < 8; ++i) {
    all[i].error_class = i < 5 ? "http_503" : "http_4xx";
    all[i].failed_at_ms = now - ages[i];
  }
  stand.park(all);
  ASSERT_EQ(stand.run({"--error-class", "http_4xx"}).code, 0);

  const run_result list = stand.run({"--list", "--json"});
  ASSERT_EQ(list.code, 0) << list.err;
  const auto rows = nlohmann::json::parse(list.out);
  ASSERT_EQ(rows.at("count"), 8);
  std::map<std::string, std::string> status;
  for (const auto& row : rows.at("records")) {
    status[row.at("key")] = row.at("status");
    EXPECT_EQ(row.at("origin"),
              std::string{dlq_stand::origin} + ":" +
                  std::to_string(std::stoi(row.at("key").get<std::string>().substr(4)) % 2));
  }
  EXPECT_EQ(status.at("key-0"), "parked");
  EXPECT_EQ(status.at("key-5"), "redriven");
  EXPECT_EQ(status.at("key-7"), "redriven");

  const run_result stats_run = stand.run({"--stats", "--json"});
  ASSERT_EQ(stats_run.code, 0) << stats_run.err;
  const auto stats = nlohmann::json::parse(stats_run.out);
  EXPECT_EQ(stats.at("total"), 8);
  EXPECT_EQ(stats.at("redriven"), 3);
  EXPECT_EQ(stats.at("by_error_class").at("http_503"), 5);
  EXPECT_EQ(stats.at("by_error_class").at("http_4xx"), 3);
  EXPECT_EQ(stats.at("by_origin").at(std::string{dlq_stand::origin} + ":0"), 4);
  EXPECT_EQ(stats.at("by_origin").at(std::string{dlq_stand::origin} + ":1"), 4);
  EXPECT_EQ(stats.at("by_age").at("<1h"), 2);
  EXPECT_EQ(stats.at("by_age").at("<1d"), 3);
  EXPECT_EQ(stats.at("by_age").at("<7d"), 1);
  EXPECT_EQ(stats.at("by_age").at("older"), 2);
  EXPECT_EQ(stats.at("oldest").at("coordinates"), dlq_coordinates(7));
  EXPECT_EQ(stats.at("newest").at("failed_at_ms"), now - 10'000);

  const run_result filtered = stand.run({"--stats", "--json", "--error-class", "http_503"});
  EXPECT_EQ(nlohmann::json::parse(filtered.out).at("total"), 5);

  const run_result human = stand.run({"--stats"});
  EXPECT_NE(human.out.find("http_503"), std::string::npos) << human.out;
}

TEST(Redrive, ShowPrintsOneRecordWithAllHeaders) {
  dlq_stand stand;
  stand.park(parked_specs(3));
  const run_result r = stand.run({"--show", dlq_coordinates(2), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rec = nlohmann::json::parse(r.out);
  EXPECT_EQ(rec.at("key"), "key-2");
  bool has_class = false;
  for (const auto& h : rec.at("headers")) {
    has_class = has_class || h.at("name") == "courier.error.class";
  }
  EXPECT_TRUE(has_class);
  const run_result missing = stand.run({"--show", std::string{dlq_stand::dlq} + ":0:99"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find(":0:99"), std::string::npos) << missing.err;
}

TEST(Redrive, MalformedHeadersAreReportedSkippedAndKeptWhileTheOthersMove) {
  dlq_stand stand;
  stand.park(parked_specs(4));  // DLQ offsets 0, 1 in both partitions
  stand.park_raw(0, "bad-partition",
                 {{"courier.origin.topic", dlq_stand::origin},
                  {"courier.origin.partition", "zero"},
                  {"courier.error.class", "http_503"}});                  // brew.shipments.dlq:0:2
  stand.park_raw(1, "no-origin", {{"courier.error.class", "http_503"}});  // :1:2
  for (int round = 0; round < 2; ++round) {
    const run_result r = stand.run({});
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.err.find("brew.shipments.dlq:0:2: header courier.origin.partition"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("brew.shipments.dlq:1:2: header courier.origin.topic is missing"),
              std::string::npos)
        << r.err;
    const auto target = stand.read_all(dlq_stand::origin);
    EXPECT_EQ(keys_of(target), (std::set<std::string>{"key-0", "key-1", "key-2", "key-3"}));
    EXPECT_EQ(target.size(), 4U);
  }
  std::set<std::string> ledger_keys;
  for (const auto& r : stand.read_all(dlq_stand::ledger_topic)) {
    ledger_keys.insert(r.key.value_or(""));
  }
  EXPECT_EQ(ledger_keys.count(std::string{dlq_stand::dlq} + ":0:2"), 0U);
  EXPECT_EQ(ledger_keys.size(), 4U);

  // With --to the record without an origin topic can move.
  const run_result to = stand.run({"--to", dlq_stand::origin, "--key", "no-origin"});
  EXPECT_EQ(to.code, 0) << to.err;
  EXPECT_EQ(stand.read_all(dlq_stand::origin).size(), 5U);
}

// A producer of the source wrote courier.origin.topic naming another route's source; a courier
// that trusted it dead-lettered the record with that origin. redrive returns nothing there.
TEST(Redrive, ARecordWhoseOriginIsNoSourceOfTheDlqsRoutesIsRefusedAndWritesNothingThere) {
  dlq_stand stand;
  const std::string other = "brew.payouts.v1";  // another route's source
  stand.cluster().create_topic(other, dlq_stand::partitions);
  stand.park(parked_specs(2));
  auto forged = parked_specs(3).back();
  forged.key = "forged";
  forged.offset = 100;
  stand.park({forged});
  const auto dlq_records = stand.read_all(dlq_stand::dlq);
  ASSERT_EQ(dlq_records.size(), 3U);
  // The forged one, as a courier that trusted the producer wrote it.
  auto headers = dlq_records.back().headers;
  for (auto& [name, value] : headers) {
    if (name == "courier.origin.topic") {
      value = other;
    }
  }
  stand.park_raw(0, "forged-away", headers);

  const run_result r = stand.run({});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("refused 1"), std::string::npos) << r.out;
  EXPECT_TRUE(stand.read_all(other).empty()) << "nothing goes to another route's source";
  EXPECT_EQ(stand.read_all(dlq_stand::origin).size(), 3U);
  // --to names it: the operator's choice.
  const run_result to = stand.run({"--to", other, "--key", "forged-away"});
  EXPECT_EQ(to.code, 0) << to.err;
  EXPECT_EQ(stand.read_all(other).size(), 1U);
}

TEST(Redrive, AnUnknownDlqTopicIsAConfigurationError) {
  dlq_stand stand;
  for (const char* mode : {"--list", "--stats"}) {
    const run_result r = stand.run({"--from", "no.such.dlq", mode});
    EXPECT_EQ(r.code, 2) << mode;
    EXPECT_NE(r.err.find("topic 'no.such.dlq' does not exist"), std::string::npos) << r.err;
  }
  const run_result dry = stand.run({"--from", "no.such.dlq", "--dry-run"});
  EXPECT_EQ(dry.code, 2);
  EXPECT_NE(dry.err.find("no route has no.such.dlq as its DLQ"), std::string::npos) << dry.err;
  const run_result to = stand.run({"--to", "no.such.target"});
  EXPECT_EQ(to.code, 2);
  EXPECT_NE(to.err.find("'no.such.target'"), std::string::npos) << to.err;
  EXPECT_TRUE(stand.read_all(dlq_stand::ledger_topic).empty());
}

}  // namespace
}  // namespace courier::redrive::test
