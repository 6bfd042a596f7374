// Issue 9 on a real broker: a record of 1.8 MB (random, so compression cannot shrink it below 1 MB)
// that the receiver rejects (400, permanent) cannot be written to a DLQ whose max.message.bytes is
// 1,000,000 (the tiers and the DLQ were created by hand before `topics ensure` sized them). It
// holds only its own partition: the other one is delivered and committed, the held one's commit
// point stays at the big record. Once the operator runs `courier topics ensure`, the next produce
// gets through, the record lands in the DLQ intact with courier's headers, the partition resumes
// and commits to its end.
//
// The receiver is mock_webhook's server in this process rather than the mock_webhook
// executable: only it takes a key rule (400 for exactly the big record's Idempotency-Key); the
// executable's fail_rate_400 picks keys by hash. courier runs as a process, as everywhere in
// this suite.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/kafka/admin.hpp"
#include "core/kafka/producer.hpp"
#include "core/model/record.hpp"
#include "core/retry/header_allowance.hpp"
#include "core/retry/retry_tiers.hpp"
#include "demo/shipments.hpp"
#include "demo/topic_reader.hpp"
#include "mock_webhook/server.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "topology/topics.hpp"

namespace courier::e2e {
namespace {

// The first line of courier's JSON log whose event starts with `prefix` and for which `match`
// holds; nothing when there is none yet.
std::optional<nlohmann::json> log_event(const std::string& log, const std::string& prefix,
                                        const std::function<bool(const nlohmann::json&)>& match) {
  std::istringstream lines{log};
  std::string line;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object() || !j.contains("event") || !j["event"].is_string()) {
      continue;
    }
    if (j["event"].get<std::string>().rfind(prefix, 0) == 0 && match(j)) {
      return j;
    }
  }
  return std::nullopt;
}

std::size_t log_events(const std::string& log, const std::string& prefix,
                       const std::function<bool(const nlohmann::json&)>& match) {
  std::size_t n = 0;
  std::istringstream lines{log};
  std::string line;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded() && j.is_object() && j.contains("event") && j["event"].is_string() &&
        j["event"].get<std::string>().rfind(prefix, 0) == 0 && match(j)) {
      ++n;
    }
  }
  return n;
}

std::string str_field(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string{};
}

double seconds_between(std::chrono::steady_clock::time_point from,
                       std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

TEST(TooLarge, RecordTooLargeForTheDlqHoldsOnlyItsPartitionAndResumesAfterTopicsEnsure) {
  using clock = std::chrono::steady_clock;
  const temp_dir scratch{"e2e-too-large", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  const std::string bootstrap = kafka_environment::bootstrap();
  constexpr int partitions = 2;
  constexpr std::size_t before_big = 5;  // partition 0: offsets 0..4, the big one at 5
  constexpr std::size_t after_big = 20;  // partition 0: offsets 6..25
  constexpr std::size_t on_p1 = 30;      // partition 1: offsets 0..29
  constexpr std::size_t big_size = 1'800'000;

  mock::server_settings ws;
  ws.hmac_secret = e2e_secret();
  mock::server receiver{ws};
  receiver.start();

  courier_settings s{unique_name("too-large-group"), unique_name("too-large"), receiver.url()};
  const std::string dlq = default_dlq_topic(s.topic);
  // The source takes 2 MB records; the tiers and the DLQ were made by hand at 1 MB.
  std::vector<kafka::new_topic_spec> topics{
      {s.topic, partitions, {{"max.message.bytes", "2000000"}}},
      {dlq, partitions, {{"max.message.bytes", "1000000"}}}};
  for (const auto delay : s.retry_tiers) {
    topics.push_back({tier_topic(s.topic, delay), partitions, {{"max.message.bytes", "1000000"}}});
  }
  kafka::create_topics_with_config(bootstrap, topics, 30s);

  // The big value: a JSON document of exactly big_size bytes around base64 of random bytes, which
  // no compression brings under the DLQ's 1,000,000 (zstd keeps about three quarters of it).
  const std::string head = R"({"shipment_id":"shp-big","blob":")";
  std::string big_value = head;
  {
    constexpr std::string_view alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::mt19937 random{7};
    while (big_value.size() < big_size - 2) {
      big_value += alphabet[random() % alphabet.size()];
    }
  }
  big_value += "\"}";
  ASSERT_EQ(big_value.size(), big_size);
  const std::string big_key = "shp-big";

  // Seed, learning every record's offset from its delivery report.
  std::set<std::string> expected_delivered;  // Idempotency-Keys: <topic>:<partition>:<offset>
  std::int64_t big_offset = -1;
  std::map<std::int32_t, std::int64_t> end_offset;
  {
    kafka::producer p{bootstrap, {{"message.max.bytes", "2000000"}}};
    std::size_t next = 0;
    std::vector<std::pair<std::int32_t, std::int64_t>> normal;
    auto produce = [&](std::int32_t partition, const std::string& key, const std::string& value,
                       bool big) {
      p.produce(s.topic, partition, key, value, {}, 0,
                [&, big](rd_kafka_resp_err_t err, std::int32_t part, std::int64_t offset) {
                  ASSERT_EQ(err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2name(err);
                  if (big) {
                    big_offset = offset;
                  } else {
                    normal.emplace_back(part, offset);
                  }
                  end_offset[part] = std::max(end_offset[part], offset + 1);
                });
      // One at a time, so the offsets come in the order produced.
      p.flush(30s);
    };
    for (std::size_t i = 0; i < before_big; ++i, ++next) {
      produce(0, demo::shipment_id(next), demo::make_shipment(next, 7), false);
    }
    produce(0, big_key, big_value, true);
    for (std::size_t i = 0; i < after_big; ++i, ++next) {
      produce(0, demo::shipment_id(next), demo::make_shipment(next, 7), false);
    }
    for (std::size_t i = 0; i < on_p1; ++i, ++next) {
      produce(1, demo::shipment_id(next), demo::make_shipment(next, 7), false);
    }
    ASSERT_EQ(p.failed(), 0U);
    for (const auto& [part, offset] : normal) {
      expected_delivered.insert(s.topic + ":" + std::to_string(part) + ":" +
                                std::to_string(offset));
    }
  }
  const std::size_t n = before_big + 1 + after_big + on_p1;
  ASSERT_EQ(expected_delivered.size(), n - 1);
  ASSERT_EQ(big_offset, static_cast<std::int64_t>(before_big));
  ASSERT_EQ(end_offset[0], static_cast<std::int64_t>(before_big + 1 + after_big));
  ASSERT_EQ(end_offset[1], static_cast<std::int64_t>(on_p1));
  const std::string big_id = s.topic + ":0:" + std::to_string(big_offset);
  receiver.set_key_rule(big_id, mock::key_rule{400, -1});

  const auto config = courier::testing::write_config(e2e_config(s), dir);
  auto courier = start_courier(config, dir, "courier");
  const auto started = clock::now();
  const std::string p0 = s.topic + "[0]";
  auto committed = [&](std::int32_t partition) -> std::int64_t {
    const auto c = kafka::committed_offsets(bootstrap, s.group, s.topic, partitions, 15s);
    return c.count(partition) == 1 ? c.at(partition) : -1;
  };
  auto delivered_on = [&](std::int32_t partition) {
    const std::string prefix = s.topic + ":" + std::to_string(partition) + ":";
    std::size_t k = 0;
    for (const auto& a : receiver.arrivals()) {
      k += a.idempotency_key.rfind(prefix, 0) == 0 ? 1 : 0;
    }
    return k;
  };

  // 3. Held: the error line names partition 0, the DLQ and the broker's reason.
  std::optional<nlohmann::json> held;
  ASSERT_TRUE(wait_until(
      [&] {
        held = log_event(courier->log(), "partition held",
                         [&](const nlohmann::json& j) { return str_field(j, "partition") == p0; });
        return held.has_value() || !courier->running();
      },
      60s))
      << tail(courier->log());
  ASSERT_TRUE(held.has_value()) << "courier exited: " << tail(courier->log());
  const auto held_at = clock::now();
  EXPECT_EQ(str_field(*held, "level"), "error") << held->dump();
  EXPECT_EQ(str_field(*held, "destination"), dlq) << held->dump();
  EXPECT_EQ(held->value("offset", std::int64_t{-1}), big_offset) << held->dump();
  const std::string reason = str_field(*held, "reason");
  EXPECT_TRUE(reason.rfind("MSG_SIZE_TOO_LARGE", 0) == 0 || reason.rfind("RECORD", 0) == 0)
      << held->dump();
  EXPECT_EQ(
      log_events(courier->log(), "partition held", [](const nlohmann::json&) { return true; }), 1U)
      << "only partition 0 is held\n"
      << tail(courier->log());

  // Partition 1 flows: every record delivered, committed to its end.
  EXPECT_TRUE(wait_until([&] { return delivered_on(1) == on_p1; }, 60s))
      << "partition 1 delivered " << delivered_on(1) << " of " << on_p1 << "\n"
      << tail(courier->log());
  EXPECT_TRUE(wait_until([&] { return committed(1) == end_offset[1]; }, 30s))
      << "partition 1 committed " << committed(1) << " of " << end_offset[1];
  // Partition 0 commits up to the big record and stays there while the router keeps failing:
  // five failed produces of it (backoffs of 200, 400, 800 and 1600 ms between them), every
  // other record of the partition delivered meanwhile, and the commit point still there.
  EXPECT_TRUE(wait_until([&] { return committed(0) == big_offset; }, 30s))
      << "partition 0 committed " << committed(0);
  auto failed_produces = [&] {
    return log_events(courier->log(), "producing a retry/DLQ record failed",
                      [&](const nlohmann::json& j) { return str_field(j, "topic") == dlq; });
  };
  EXPECT_TRUE(wait_until([&] { return failed_produces() >= 5; }, 60s)) << tail(courier->log());
  EXPECT_TRUE(wait_until([&] { return delivered_on(0) == before_big + after_big; }, 30s))
      << "partition 0 delivered " << delivered_on(0);
  EXPECT_EQ(committed(0), big_offset) << "the commit point moved past the held record";
  EXPECT_FALSE(
      log_event(courier->log(), "partition resumed", [](const nlohmann::json&) { return true; })
          .has_value())
      << tail(courier->log());
  const std::size_t p0_delivered_while_held = delivered_on(0);
  const std::size_t failed_before_fix = failed_produces();
  ASSERT_TRUE(courier->running()) << tail(courier->log());

  // 4. The operator fixes the topics; the next produce gets through.
  const auto fix_started = clock::now();
  ensure_topics(config, dir);
  const auto fixed_at = clock::now();
  const std::int64_t needed = 2'000'000 + courier_header_allowance();
  EXPECT_GE(std::stoll(kafka::describe_topic_config(bootstrap, dlq, 15s).at("max.message.bytes")),
            needed);

  std::optional<nlohmann::json> resumed;
  EXPECT_TRUE(wait_until(
      [&] {
        resumed = log_event(courier->log(), "partition resumed", [&](const nlohmann::json& j) {
          return str_field(j, "partition") == p0;
        });
        return resumed.has_value();
      },
      60s))
      << tail(courier->log());
  const auto resumed_at = clock::now();

  std::vector<record> parked;
  EXPECT_TRUE(wait_until(
      [&] {
        parked = demo::read_topic(bootstrap, dlq, 1, 2s);
        return !parked.empty();
      },
      30s))
      << tail(courier->log());
  EXPECT_TRUE(wait_until([&] { return committed(0) == end_offset[0]; }, 30s))
      << "partition 0 committed " << committed(0) << " of " << end_offset[0] << "\n"
      << tail(courier->log());
  EXPECT_TRUE(wait_until([&] { return delivered_on(0) == before_big + after_big; }, 30s))
      << "partition 0 delivered " << delivered_on(0);

  const auto code = terminate(*courier);
  ASSERT_TRUE(code.has_value()) << "courier did not stop on SIGTERM\n" << tail(courier->log());
  EXPECT_EQ(*code, 0) << tail(courier->log());

  // The DLQ holds the big record once, value intact, with courier's headers.
  const auto in_dlq = read_to_end(dlq, partitions, "read_uncommitted", 30s);
  ASSERT_EQ(in_dlq.size(), 1U) << "the DLQ holds the big record exactly once";
  const auto& r = in_dlq.front();
  EXPECT_EQ(r.partition, 0);
  EXPECT_EQ(r.key.value_or(""), big_key);
  EXPECT_EQ(r.value.size(), big_size);
  EXPECT_TRUE(r.value == big_value) << "the DLQ copy's value differs from the source's";
  auto header = [&](const char* name) {
    return std::string{find_header(r.headers, name).value_or("(missing)")};
  };
  EXPECT_EQ(header("courier.idempotency.key"), big_id);
  EXPECT_EQ(header("courier.route"), "shipments");
  EXPECT_EQ(header("courier.origin.topic"), s.topic);
  EXPECT_EQ(header("courier.origin.partition"), "0");
  EXPECT_EQ(header("courier.origin.offset"), std::to_string(big_offset));
  EXPECT_EQ(header("courier.error.class"), "http_4xx");
  EXPECT_EQ(header("courier.error.status"), "400");

  // Every other record delivered exactly once; the big one was tried once and rejected.
  const auto st = receiver.snapshot();
  std::set<std::string> arrived;
  for (const auto& a : receiver.arrivals()) {
    EXPECT_TRUE(arrived.insert(a.idempotency_key).second) << a.idempotency_key << " twice";
  }
  EXPECT_EQ(arrived, expected_delivered);
  EXPECT_EQ(arrived.count(big_id), 0U);
  EXPECT_EQ(st.ok, n - 1);
  EXPECT_EQ(st.unique_keys, n) << "no key invented";
  EXPECT_EQ(st.fail_400, 1U) << "the big record went to the DLQ after one 400";
  EXPECT_EQ(st.fail_401, 0U);
  EXPECT_EQ(st.duplicates, 0U);
  EXPECT_EQ(committed(0), end_offset[0]);
  EXPECT_EQ(committed(1), end_offset[1]);

  std::cout << "[ timings  ] held after " << seconds_between(started, held_at)
            << " s; fix (topics ensure) started " << seconds_between(held_at, fix_started)
            << " s after that, took " << seconds_between(fix_started, fixed_at) << " s; resumed "
            << seconds_between(fixed_at, resumed_at)
            << " s after the fix; failed DLQ produces before the fix: " << failed_before_fix
            << "; partition 0 records delivered while held: " << p0_delivered_while_held << " of "
            << after_big + before_big << "\n[ held     ] " << held->dump() << "\n[ resumed  ] "
            << (resumed ? resumed->dump() : std::string{"(none)"}) << "\n";
  receiver.stop();
}

}  // namespace
}  // namespace courier::e2e
