// Records that came compressed, on a real broker. A producer that compresses (zstd here) puts a
// 3 MB JSON document into a topic whose max.message.bytes is 1,000,000: the broker checks the
// compressed batch. courier's retry producer and redrive's write such a record back: sized by
// the topics' limit and uncompressed, they refused it before sending anything, the partition
// was held for good and redrive failed at it on every run.
//
// And the other side of the same check: a record its target really refuses (incompressible,
// larger than the target's max.message.bytes) fails alone in redrive, the rest of its batch
// moves, and the next run says the same.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/kafka/admin.hpp"
#include "core/kafka/producer.hpp"
#include "core/model/record.hpp"
#include "core/retry/retry_headers.hpp"
#include "core/retry/retry_tiers.hpp"
#include "demo/shipments.hpp"
#include "mock_webhook/server.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "tests/support/parked_record.hpp"
#include "tests/support/redrive_config.hpp"

namespace courier::e2e {
namespace {

// A producer as a partner's service would run one: zstd, and records of up to 4 MB before
// compression.
kafka::producer compressing_producer(const std::string& bootstrap) {
  return kafka::producer{bootstrap,
                         {{"compression.type", "zstd"}, {"message.max.bytes", "4000000"}}};
}

// redrive as a process against the suite's broker; its stdout and stderr go to one log.
struct redrive_run {
  std::optional<int> code;
  std::string log;
};
redrive_run run_redrive(const std::vector<std::string>& args, const std::filesystem::path& dir,
                        const std::string& name) {
  child_process run{REDRIVE_BINARY, args, {}, (dir / (name + ".log")).string(), {"KAFKA_BROKERS"}};
  redrive_run r;
  r.code = run.wait_exit(120s);
  r.log = run.log();
  return r;
}

// The --json report: the log's line that parses as a JSON object.
nlohmann::json report_of(const std::string& log) {
  std::istringstream lines{log};
  std::string line;
  while (std::getline(lines, line)) {
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded() && j.is_object() && j.contains("moved")) {
      return j;
    }
  }
  return nlohmann::json{};
}

TEST(Compressed, ARecordLargerThanItsTopicUncompressedReachesTheDlqAndGoesBackWithRedrive) {
  const temp_dir scratch{"e2e-compressed", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  const std::string bootstrap = kafka_environment::bootstrap();
  constexpr int partitions = 2;
  constexpr std::size_t big_size = 3'000'000;  // three times the topics' limit

  mock::server_settings ws;
  ws.hmac_secret = e2e_secret();
  mock::server receiver{ws};
  receiver.start();

  courier_settings s{unique_name("compressed-group"), unique_name("compressed"), receiver.url()};
  const std::string dlq = default_dlq_topic(s.topic);
  kafka::create_topics_with_config(
      bootstrap, {{s.topic, partitions, {{"max.message.bytes", "1000000"}}}}, 30s);
  // The tiers and the DLQ as `topics ensure` sizes them: 1,000,000 + courier's headers.
  const auto config = prepare(s, dir);

  const std::string head = R"({"shipment_id":"shp-big","manifest":")";
  std::string big_value = head;
  while (big_value.size() < big_size - 2) {
    big_value += "parcel-" + std::to_string(big_value.size() % 9973) + ";";
  }
  big_value.resize(big_size - 2, 'x');
  big_value += "\"}";
  ASSERT_EQ(big_value.size(), big_size);

  // Partition 0: five records, the big one, five more; partition 1: ten. One at a time, so the
  // offsets come in the order produced.
  std::set<std::string> expected;  // Idempotency-Keys of the normal records
  std::map<std::int32_t, std::int64_t> end_offset;
  std::int64_t big_offset = -1;
  {
    auto p = compressing_producer(bootstrap);
    std::size_t next = 0;
    auto produce = [&](std::int32_t partition, const std::string& key, const std::string& value,
                       bool big) {
      p.produce(
          s.topic, partition, key, value, {}, 0,
          [&, big](rd_kafka_resp_err_t err, std::int32_t part, std::int64_t offset) {
            ASSERT_EQ(err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2name(err);
            if (big) {
              big_offset = offset;
            } else {
              expected.insert(s.topic + ":" + std::to_string(part) + ":" + std::to_string(offset));
            }
            end_offset[part] = std::max(end_offset[part], offset + 1);
          });
      p.flush(30s);
    };
    for (int i = 0; i < 5; ++i, ++next) {
      produce(0, demo::shipment_id(next), demo::make_shipment(next, 7), false);
    }
    produce(0, "shp-big", big_value, true);
    for (int i = 0; i < 5; ++i, ++next) {
      produce(0, demo::shipment_id(next), demo::make_shipment(next, 7), false);
    }
    for (int i = 0; i < 10; ++i, ++next) {
      produce(1, demo::shipment_id(next), demo::make_shipment(next, 7), false);
    }
    ASSERT_EQ(p.failed(), 0U);
  }
  ASSERT_EQ(big_offset, 5);
  ASSERT_EQ(expected.size(), 20U);
  const std::string big_id = s.topic + ":0:" + std::to_string(big_offset);
  // The partner refuses the big one once (400: permanent, straight to the DLQ).
  receiver.set_key_rule(big_id, mock::key_rule{400, 1});

  auto courier = start_courier(config, dir, "courier");
  auto committed = [&](std::int32_t partition) -> std::int64_t {
    const auto c = kafka::committed_offsets(bootstrap, s.group, s.topic, partitions, 15s);
    return c.count(partition) == 1 ? c.at(partition) : -1;
  };
  auto delivered = [&] {
    std::set<std::string> keys;
    for (const auto& a : receiver.arrivals()) {
      keys.insert(a.idempotency_key);
    }
    return keys;
  };

  // Both partitions commit to their ends: the big record is in the DLQ, not holding partition 0.
  ASSERT_TRUE(wait_until(
      [&] {
        return (committed(0) == end_offset[0] && committed(1) == end_offset[1]) ||
               !courier->running();
      },
      90s))
      << "committed " << committed(0) << " of " << end_offset[0] << " and " << committed(1)
      << " of " << end_offset[1] << "\n"
      << tail(courier->log());
  ASSERT_TRUE(courier->running()) << tail(courier->log());
  EXPECT_EQ(courier->log().find("partition held"), std::string::npos) << tail(courier->log());
  EXPECT_EQ(delivered(), expected);

  const auto in_dlq = read_to_end(dlq, partitions, "read_uncommitted", 30s);
  ASSERT_EQ(in_dlq.size(), 1U) << "the DLQ holds the big record exactly once";
  EXPECT_EQ(in_dlq.front().value.size(), big_size);
  EXPECT_TRUE(in_dlq.front().value == big_value) << "the DLQ copy's value differs";
  EXPECT_EQ(find_header(in_dlq.front().headers, "courier.idempotency.key").value_or("(missing)"),
            big_id);
  EXPECT_EQ(find_header(in_dlq.front().headers, "courier.error.status").value_or("(missing)"),
            "400");

  // The partner fixed its side; redrive puts the record back into its source, compressed again,
  // and courier delivers it under its original key.
  const auto moved = run_redrive(
      {"--config", courier::testing::write_redrive_config(dir / "redrive.json", {{s.topic, dlq}}),
       "--from", dlq, "--bootstrap", bootstrap, "--timeout", "10s", "--json"},
      dir, "redrive");
  EXPECT_EQ(moved.code, std::optional<int>{0}) << tail(moved.log);
  const auto report = report_of(moved.log);
  EXPECT_EQ(report.value("moved", -1), 1) << moved.log;
  EXPECT_EQ(report.value("failed", -1), 0) << moved.log;
  EXPECT_TRUE(wait_until([&] { return delivered().count(big_id) == 1; }, 60s))
      << tail(courier->log());

  const auto code = terminate(*courier);
  ASSERT_TRUE(code.has_value()) << "courier did not stop on SIGTERM\n" << tail(courier->log());
  EXPECT_EQ(*code, 0) << tail(courier->log());

  // Every record delivered exactly once, the big one after its one 400; nothing else parked.
  auto all = expected;
  all.insert(big_id);
  const auto st = receiver.snapshot();
  EXPECT_EQ(delivered(), all);
  EXPECT_EQ(st.ok, all.size());
  EXPECT_EQ(st.fail_400, 1U);
  EXPECT_EQ(st.duplicates, 0U);
  EXPECT_EQ(read_to_end(dlq, partitions, "read_uncommitted", 30s).size(), 1U)
      << "redrive copies; the DLQ keeps its record";
  receiver.stop();
}

TEST(Compressed, ARecordItsTargetRefusesFailsAloneInRedriveAndTheRestMove) {
  const temp_dir scratch{"e2e-redrive-refused", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  const std::string bootstrap = kafka_environment::bootstrap();
  const std::string origin = unique_name("refusing");
  const std::string dlq = default_dlq_topic(origin);
  constexpr int partitions = 2;
  kafka::create_topics_with_config(bootstrap,
                                   {{origin, partitions, {{"max.message.bytes", "100000"}}},
                                    {dlq, partitions, {{"max.message.bytes", "2000000"}}}},
                                   30s);

  // Ten DLQ records as courier parks them, alternating partitions; the fourth (DLQ coordinates
  // dlq:1:1) is 300,000 random bytes: no compression brings it under the origin's 100,000.
  std::mt19937_64 random{42};
  std::string culprit_value(300'000, '\0');
  for (auto& c : culprit_value) {
    c = static_cast<char>(random() & 0xff);
  }
  {
    auto p = compressing_producer(bootstrap);
    for (int i = 0; i < 10; ++i) {
      record r;
      r.topic = origin;
      r.partition = i % 2;
      r.offset = i / 2;
      r.key = "key-" + std::to_string(i);
      r.value = i == 3 ? culprit_value : "value-of-key-" + std::to_string(i);
      r.timestamp_ms = 1'700'000'000'000;
      failure_info f;
      f.error_class = "http_503";
      f.error_message = "the receiver said no";
      f.status = 503;
      f.attempts = 4;
      f.failed_at_ms = 1'700'000'000'000;
      p.produce(dlq, r.partition, *r.key, r.value.view(),
                courier::testing::dlq_copy(r, "shipments", dlq, f, f.failed_at_ms), 0);
    }
    p.flush(30s);
    ASSERT_EQ(p.failed(), 0U);
  }
  const std::string culprit = dlq + ":1:1";

  const std::vector<std::string> args{
      "--config",    courier::testing::write_redrive_config(dir / "redrive.json", {{origin, dlq}}),
      "--from",      dlq,
      "--bootstrap", bootstrap,
      "--timeout",   "10s",
      "--batch",     "2",
      "--json"};
  const auto first = run_redrive(args, dir, "redrive-first");
  EXPECT_EQ(first.code, std::optional<int>{1}) << tail(first.log);  // some failed
  const auto report = report_of(first.log);
  EXPECT_EQ(report.value("moved", -1), 9) << first.log;
  EXPECT_EQ(report.value("failed", -1), 1) << first.log;
  EXPECT_NE(first.log.find(culprit + ": not moved: "), std::string::npos) << first.log;

  const auto target = read_to_end(origin, partitions, "read_committed", 30s);
  std::map<std::string, int> from;
  for (const auto& r : target) {
    ++from[std::string{find_header(r.headers, "courier.redrive.from").value_or("(missing)")}];
  }
  EXPECT_EQ(target.size(), 9U);
  EXPECT_EQ(from.size(), 9U) << "each once";
  EXPECT_EQ(from.count(culprit), 0U);

  const auto again = run_redrive(args, dir, "redrive-again");
  EXPECT_EQ(again.code, std::optional<int>{1}) << tail(again.log);
  const auto second = report_of(again.log);
  EXPECT_EQ(second.value("moved", -1), 0) << again.log;
  EXPECT_EQ(second.value("failed", -1), 1) << again.log;
  EXPECT_EQ(second.value("already_redriven", -1), 9) << again.log;
}

}  // namespace
}  // namespace courier::e2e
