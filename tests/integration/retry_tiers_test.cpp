#include <algorithm>
#include <cstdio>
#include <memory>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/model/idempotency_key.hpp"
#include "core/kafka/admin.hpp"
#include "core/retry/retry_headers.hpp"
#include "tests/integration/stand.hpp"
#include "topology/pipeline.hpp"
#include "demo/topic_reader.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

std::string key_of(const stand& s, int partition, long long offset) {
  return s.topic + ":" + std::to_string(partition) + ":" + std::to_string(offset);
}

std::string header_or_empty(const record& r, std::string_view name) {
  const auto v = find_header(r.headers, name);
  return v ? std::string{*v} : std::string{};
}

std::vector<record> read_dlq(const stand& s, std::size_t expected) {
  return demo::read_topic(s.cfg.kafka.brokers, s.dlq, expected, 20s, fast_group());
}

TEST(RetryTiers, APoisonRecordGoesToTheDlqAfterOneAttemptAndDoesNotHoldUpItsPartition) {
  stand s{1};
  s.seed(50);
  const auto poison = key_of(s, 0, 0);
  s.receiver->set_key_rule(poison, mock::key_rule{400, -1});
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until(
      [&] {
        return s.receiver->snapshot().ok >= 49 &&
               m.deliveries[delivery_counter::dead_lettered] >= 1;
      },
      30s));
  p.stop();

  EXPECT_EQ(s.receiver->attempts_by_key().at(poison), 1U) << "a 400 is never retried";
  const auto dlq = read_dlq(s, 1);
  ASSERT_EQ(dlq.size(), 1U);
  const auto& r = dlq.front();
  EXPECT_EQ(header_or_empty(r, idempotency_key_header), poison);
  EXPECT_EQ(header_or_empty(r, error_class_header), "http_4xx");
  EXPECT_EQ(header_or_empty(r, error_status_header), "400");
  EXPECT_EQ(header_or_empty(r, origin_topic_header), s.topic);
  EXPECT_EQ(header_or_empty(r, origin_partition_header), "0");
  EXPECT_EQ(header_or_empty(r, origin_offset_header), "0");
  EXPECT_EQ(header_or_empty(r, attempts_header), "1");
  EXPECT_EQ(r.key, demo::shipment_id(0)) << "the DLQ record keeps the original key";
  EXPECT_EQ(r.value, demo::make_shipment(0, 7)) << "and the original value";
  const auto by = p.router_metrics()->produced_by();
  ASSERT_EQ(by.size(), 1U);
  EXPECT_EQ(by.begin()->first, std::make_pair(s.dlq, std::string{"http_4xx"}));
  EXPECT_EQ(by.begin()->second, 1U) << "/metrics counts it by destination and error class";
  // The source partition's offset moved past the poison record.
  const auto committed =
      kafka::committed_offsets(s.cfg.kafka.brokers, s.cfg.kafka.group_id, s.topic, 1, 10s);
  EXPECT_EQ(committed.at(0), 50);
}

// kcat (Debian's package, installed by scripts/install-deps.sh) reads the DLQ as an operator
// would, and its headers are plain text.
TEST(RetryTiers, TheDlqReadsWithKcatAndItsHeadersAreHumanReadable) {
  stand s{1};
  s.seed(3);
  s.receiver->set_key_rule(key_of(s, 0, 1), mock::key_rule{400, -1});
  {
    caf::actor_system sys{s.sys_cfg};
    topology::pipeline p{sys, s.cfg, {}};
    const auto& m = *p.routes().front().metrics;
    ASSERT_TRUE(
        wait_until([&] { return m.deliveries[delivery_counter::dead_lettered].load() >= 1; }, 30s));
    p.stop();
  }
  const std::string cmd = "kcat -b " + s.cfg.kafka.brokers + " -C -t " + s.dlq +
                          " -o beginning -e -q -f '%k|%h|%s\\n' 2>&1";
  std::string out;
  {
    std::unique_ptr<FILE, int (*)(FILE*)> pipe{popen(cmd.c_str(), "r"), pclose};
    ASSERT_NE(pipe, nullptr);
    char buf[4096];
    while (std::fgets(buf, sizeof buf, pipe.get()) != nullptr) {
      out += buf;
    }
  }
  ASSERT_EQ(out.find("not found"), std::string::npos)
      << "kcat is missing: scripts/install-deps.sh installs it\n"
      << out;
  EXPECT_NE(out.find(demo::shipment_id(1) + "|"), std::string::npos) << out;
  EXPECT_NE(out.find("courier.error.class=http_4xx"), std::string::npos) << out;
  EXPECT_NE(out.find("courier.error.status=400"), std::string::npos) << out;
  EXPECT_NE(out.find("courier.origin.offset=1"), std::string::npos) << out;
  EXPECT_NE(out.find("courier.idempotency.key=" + key_of(s, 0, 1)), std::string::npos) << out;
  EXPECT_NE(out.find("\"shipment_id\":\"" + demo::shipment_id(1) + "\""), std::string::npos) << out;
}

TEST(RetryTiers, ARecordFailingForAWhileComesBackThroughTheTiersWithItsKeyAndNeverEarly) {
  stand s{1};
  s.route().retry.max_attempts = 2;
  s.route().retry_tiers = {500ms, 800ms};
  s.seed(5);
  const auto key = key_of(s, 0, 2);
  // Two attempts from the source, two from the first tier, then success in the second tier.
  s.receiver->set_key_rule(key, mock::key_rule{503, 4});
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 5; }, 30s));
  p.stop();

  EXPECT_EQ(s.receiver->attempts_by_key().at(key), 5U) << "the same key on every attempt";
  EXPECT_EQ(s.receiver->snapshot().unique_keys, 5U);
  EXPECT_EQ(m.deliveries[delivery_counter::retried].load(), 2U);
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), 0U);
  // No attempt from a tier before its due time: due = failure time + delay, and the failure
  // was observed after the receiver saw the failing attempt.
  const auto times = s.receiver->attempt_times().at(key);
  ASSERT_EQ(times.size(), 5U);
  EXPECT_GE(times[2] - times[1], 500ms);
  EXPECT_GE(times[4] - times[3], 800ms);
}

TEST(RetryTiers, ARecordThatNeverSucceedsEndsInTheDlqWithItsAttemptsAndTrace) {
  stand s{1};
  s.route().retry.max_attempts = 2;
  s.route().retry_tiers = {200ms, 300ms};
  s.seed(3);
  const auto key = key_of(s, 0, 1);
  s.receiver->set_key_rule(key, mock::key_rule{503, -1});
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(
      wait_until([&] { return m.deliveries[delivery_counter::dead_lettered].load() >= 1; }, 30s));
  p.stop();

  EXPECT_EQ(s.receiver->attempts_by_key().at(key), 6U);
  const auto dlq = read_dlq(s, 1);
  ASSERT_EQ(dlq.size(), 1U);
  const auto& r = dlq.front();
  EXPECT_EQ(header_or_empty(r, idempotency_key_header), key);
  EXPECT_EQ(header_or_empty(r, attempts_header), "6");
  EXPECT_EQ(header_or_empty(r, error_class_header), "http_503");
  EXPECT_EQ(header_or_empty(r, retry_tier_header), "1");
  EXPECT_EQ(header_or_empty(r, origin_offset_header), "1");
  const auto trace = header_or_empty(r, error_trace_header);
  EXPECT_EQ(std::count(trace.begin(), trace.end(), '\n'), 5) << trace;
  // Replaced on every hop, never piled up.
  EXPECT_EQ(std::count_if(r.headers.begin(), r.headers.end(),
                          [](const header& h) { return h.first == error_class_header; }),
            1);
}

TEST(RetryTiers, UnderMixedChaosEveryRecordIsDeliveredOrInTheDlqExactlyOnce) {
  mock::server_settings ws;
  ws.initial.fail_rate_503 = 0.3;
  ws.initial.fail_rate_timeout = 0.05;
  ws.initial.fail_rate_400 = 0.05;
  ws.hang_for = 2s;
  ws.seed = 21;
  stand s{4, ws};
  s.route().retry.max_attempts = 2;
  // Hangs (2 s) outlast the timeout; a 2xx must not. A record the receiver accepted but whose
  // answer came after the timeout (300 ms was too short under TSan on a loaded machine) can
  // end in the DLQ, which this test would read as delivered and dead-lettered.
  s.route().http.timeout = 1s;
  s.route().http.max_connections = 256;
  s.route().breaker.trip_after = 1000;
  constexpr std::size_t n = 300;
  s.seed(n);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until(
      [&] {
        return s.receiver->snapshot().ok + m.deliveries[delivery_counter::dead_lettered] >= n;
      },
      90s))
      << "delivered " << s.receiver->snapshot().ok << ", dead-lettered "
      << m.deliveries[delivery_counter::dead_lettered];
  p.stop();

  std::set<std::string> delivered;
  for (const auto& a : s.receiver->arrivals()) {
    delivered.insert(a.idempotency_key);
  }
  const auto dlq = read_dlq(s, m.deliveries[delivery_counter::dead_lettered]);
  std::set<std::string> dead;
  for (const auto& r : dlq) {
    const auto key = header_or_empty(r, idempotency_key_header);
    EXPECT_TRUE(dead.insert(key).second) << key << " is in the DLQ twice";
    EXPECT_EQ(delivered.count(key), 0U) << key << " was delivered and dead-lettered";
  }
  EXPECT_GT(dead.size(), 0U) << "the 400s must have reached the DLQ";
  EXPECT_GT(m.deliveries[delivery_counter::retried].load(), 0U);
  EXPECT_EQ(delivered.size() + dead.size(), n);
  std::set<std::string> all = delivered;
  all.insert(dead.begin(), dead.end());
  EXPECT_EQ(all.size(), n);
}

TEST(RetryTiers, AProduceFailureLeavesTheSourceOffsetUncommittedUntilTheDlqAcknowledges) {
  stand s{1};
  s.seed(20);
  const auto poison = key_of(s, 0, 0);
  s.receiver->set_key_rule(poison, mock::key_rule{400, -1});
  // The next Produce requests fail: the DLQ record cannot be written for a while.
  s.cluster.push_request_errors(
      0, std::vector<rd_kafka_resp_err_t>(5, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED));
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 19; }, 30s));
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), 0U)
      << "the broker refused the DLQ record so far";
  const auto while_failing =
      kafka::committed_offsets(s.cfg.kafka.brokers, s.cfg.kafka.group_id, s.topic, 1, 10s);
  EXPECT_EQ(while_failing.count(0) ? while_failing.at(0) : 0, 0)
      << "the poison record's offset must stay uncommitted while its DLQ write fails";
  ASSERT_TRUE(
      wait_until([&] { return m.deliveries[delivery_counter::dead_lettered].load() >= 1; }, 60s));
  p.stop();
  const auto committed =
      kafka::committed_offsets(s.cfg.kafka.brokers, s.cfg.kafka.group_id, s.topic, 1, 10s);
  EXPECT_EQ(committed.at(0), 20);
  EXPECT_EQ(read_dlq(s, 1).size(), 1U);
}

// A record that cannot be written to the DLQ (the broker refuses it for a while) holds only its
// own partition, with the reason produce_blocked: the other partition keeps flowing and
// commits; once the DLQ takes the record the partition resumes and commits on its own.
TEST(RetryTiers, ARecordTheDlqRefusesHoldsOnlyItsPartitionWhichResumesOnceItIsWritten) {
  stand s{2};
  s.seed(40);
  const auto poison = key_of(s, 0, 0);
  s.receiver->set_key_rule(poison, mock::key_rule{400, -1});
  // Only the retry router produces from here on: the next Produce requests are all its tries.
  s.cluster.push_request_errors(
      0, std::vector<rd_kafka_resp_err_t>(3, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED));
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& m = *p.routes().front().metrics;
  auto committed = [&](std::int32_t partition) {
    const auto c =
        kafka::committed_offsets(s.cfg.kafka.brokers, s.cfg.kafka.group_id, s.topic, 2, 10s);
    return c.count(partition) ? c.at(partition) : 0;
  };
  ASSERT_TRUE(
      wait_until([&] { return m.gauges[actors::route_gauge::paused_partitions].load() == 1; }, 30s))
      << "the poison record's partition is held while its DLQ write fails";
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), 0U);
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 39; }, 30s));
  EXPECT_EQ(committed(0), 0) << "held at the poison record";
  ASSERT_TRUE(wait_until([&] { return committed(1) > 0; }, 30s))
      << "the other partition commits meanwhile";

  ASSERT_TRUE(
      wait_until([&] { return m.deliveries[delivery_counter::dead_lettered].load() == 1; }, 60s));
  ASSERT_TRUE(
      wait_until([&] { return m.gauges[actors::route_gauge::paused_partitions].load() == 0; }, 30s))
      << "written at last: the partition resumes on its own";
  p.stop();
  EXPECT_EQ(committed(0) + committed(1), 40) << "every record delivered or in the DLQ commits";
  const auto dlq = read_dlq(s, 1);
  ASSERT_EQ(dlq.size(), 1U);
  EXPECT_EQ(header_or_empty(dlq.front(), idempotency_key_header), poison);
  const auto delivered = delivered_keys(*s.receiver);
  EXPECT_EQ(delivered.size(), 39U);
  EXPECT_EQ(delivered.count(poison), 0U) << "delivered and dead-lettered are disjoint";
}

}  // namespace
}  // namespace courier::testing
