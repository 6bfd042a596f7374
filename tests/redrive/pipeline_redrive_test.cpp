// Issue 5 end to end on librdkafka's mock cluster: the real actor pipeline parks what the
// receiver rejects in the DLQ, the receiver is fixed, redrive returns the parked records to
// their origin topic, and the same pipeline delivers them with their original Idempotency-Keys.

#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/model/idempotency_key.hpp"
#include "core/retry/retry_headers.hpp"
#include "tests/integration/stand.hpp"
#include "tests/redrive/dlq_stand.hpp"
#include "tests/support/parked_record.hpp"
#include "tools/redrive/cli.hpp"
#include "core/kafka/range_reader.hpp"
#include "core/redrive/ledger.hpp"
#include "tools/redrive/redrive.hpp"
#include "topology/pipeline.hpp"
#include "demo/topic_reader.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;
using courier::redrive::test::read_all;
using courier::redrive::test::run_result;
using courier::redrive::test::wall_now_ms;

// `redrive --from <dlq> --json` in process, as the operator would run it.
run_result run_redrive(const std::string& brokers, const std::string& dlq) {
  return courier::redrive::test::run_redrive(brokers, dlq, {"--json"});
}

std::string coordinates_of(const record& r) {
  return r.topic + ":" + std::to_string(r.partition) + ":" + std::to_string(r.offset);
}

std::string header_or_empty(const record& r, std::string_view name) {
  const auto v = find_header(r.headers, name);
  return v ? std::string{*v} : std::string{};
}

TEST(RedrivePipeline, ParkedRecordsAreDeliveredWithTheirOriginalKeysAndAKnownOneIsADuplicate) {
  constexpr std::size_t n = 30;
  constexpr int partitions = 2;
  stand s{partitions};
  const std::string ledger = redrive::default_ledger_topic(s.dlq);
  s.cluster.create_topic(ledger, 1);  // the mock cluster cannot create topics
  s.seed(n);

  // Where the seeded records landed (the partitioner picks by key).
  const auto source = demo::read_topic(s.cfg.kafka.brokers, s.topic, n, 20s, fast_group());
  ASSERT_EQ(source.size(), n);
  const std::vector<std::size_t> rejected_at{2, 9, 17, 26};
  constexpr std::size_t known_at = 13;  // delivered once, later found in the DLQ too
  std::set<std::string> rejected;
  for (const auto i : rejected_at) {
    rejected.insert(coordinates_of(source[i]));
    s.receiver->set_key_rule(coordinates_of(source[i]), mock::key_rule{400, -1});
  }
  const record known = source[known_at];
  const std::string known_key = coordinates_of(known);
  ASSERT_EQ(rejected.count(known_key), 0U);
  std::set<std::string> seeded_keys;
  for (const auto& r : source) {
    seeded_keys.insert(coordinates_of(r));
  }
  ASSERT_EQ(seeded_keys.size(), n);

  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until(
      [&] {
        return s.receiver->snapshot().ok >= n - rejected.size() &&
               m.deliveries[delivery_counter::dead_lettered] >= 4;
      },
      30s))
      << "delivered " << s.receiver->snapshot().ok << ", dead-lettered "
      << m.deliveries[delivery_counter::dead_lettered];

  // The already-processed record lands in the DLQ as well, the way the retry router writes
  // it (say, a timeout after the partner had in fact accepted it).
  {
    failure_info f;
    f.error_class = "timeout";
    f.error_message = "no answer within 1000ms";
    f.trace = {format_trace_entry(wall_now_ms(), "timeout")};
    f.attempts = 1;
    f.failed_at_ms = wall_now_ms();
    kafka::producer prod{s.cfg.kafka.brokers};
    prod.produce(s.dlq, known.partition, known.key, known.value,
                 dlq_copy(known, s.route().name, s.dlq, f, f.failed_at_ms), 0);
    prod.flush(10s);
  }
  const auto dlq = read_all(s.cfg.kafka.brokers, s.dlq);
  ASSERT_EQ(dlq.size(), rejected.size() + 1);
  std::set<std::string> parked_keys;
  for (const auto& r : dlq) {
    parked_keys.insert(header_or_empty(r, idempotency_key_header));
  }
  std::set<std::string> expected_parked = rejected;
  expected_parked.insert(known_key);
  ASSERT_EQ(parked_keys, expected_parked);

  const auto before = s.receiver->snapshot();
  ASSERT_EQ(before.ok, n - rejected.size()) << "the rejected records were not delivered";
  ASSERT_EQ(before.fail_400, rejected.size());
  ASSERT_EQ(before.duplicates, 0U);
  const auto fetched_before = m.consumer[consumer_counter::consumed].load();

  // The partner fixed its side.
  for (const auto& key : rejected) {
    s.receiver->set_key_rule(key, mock::key_rule{400, 0});
  }

  const auto first = run_redrive(s.cfg.kafka.brokers, s.dlq);
  ASSERT_EQ(first.code, 0) << first.err << first.out;
  EXPECT_EQ(nlohmann::json::parse(first.out).at("moved"), rejected.size() + 1) << first.out;

  // The running pipeline fetches the redriven records from the origin topic.
  ASSERT_TRUE(wait_until(
      [&] {
        const auto st = s.receiver->snapshot();
        return st.ok >= n && st.duplicates >= 1 &&
               m.consumer[consumer_counter::consumed] >= fetched_before + 5 &&
               m.gauges[actors::route_gauge::in_flight] == 0;
      },
      30s))
      << "ok " << s.receiver->snapshot().ok << ", duplicates " << s.receiver->snapshot().duplicates
      << ", fetched " << m.consumer[consumer_counter::consumed] - fetched_before;
  p.stop();

  const auto after = s.receiver->snapshot();
  EXPECT_EQ(after.ok - before.ok, rejected.size()) << "exactly the new keys are new deliveries";
  EXPECT_EQ(after.duplicates - before.duplicates, 1U) << "the known record is a duplicate";
  EXPECT_EQ(after.unique_keys, n) << "no key the origin topic did not first have";
  EXPECT_EQ(after.fail_400, before.fail_400) << "fixed: no further rejection";
  EXPECT_EQ(m.consumer[consumer_counter::consumed] - fetched_before, rejected.size() + 1);
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), rejected.size())
      << "nothing went back to the DLQ";
  EXPECT_EQ(read_all(s.cfg.kafka.brokers, s.dlq).size(), rejected.size() + 1)
      << "the DLQ is left as it was";

  // The receiver saw the keys of the first appearance, never the redriven copies' coordinates.
  const auto attempts = s.receiver->attempts_by_key();
  std::set<std::string> seen;
  for (const auto& [key, count] : attempts) {
    seen.insert(key);
  }
  EXPECT_EQ(seen, seeded_keys);
  for (const auto& key : rejected) {
    EXPECT_EQ(attempts.at(key), 2U) << key << ": one 400, then the redriven delivery";
  }
  EXPECT_EQ(attempts.at(known_key), 2U);
  std::set<std::string> arrived;
  for (const auto& a : s.receiver->arrivals()) {
    arrived.insert(a.idempotency_key);
  }
  EXPECT_EQ(arrived, seeded_keys);

  const auto origin_after = read_all(s.cfg.kafka.brokers, s.topic);
  std::map<std::string, int> redriven_from;
  for (const auto& r : origin_after) {
    const auto from = find_header(r.headers, "courier.redrive.from");
    if (!from) {
      continue;
    }
    ++redriven_from[std::string{*from}];
    EXPECT_EQ(seeded_keys.count(coordinates_of(r)), 0U);
    EXPECT_EQ(attempts.count(coordinates_of(r)), 0U)
        << coordinates_of(r) << " is the redriven copy's own position";
    EXPECT_EQ(expected_parked.count(header_or_empty(r, idempotency_key_header)), 1U)
        << coordinates_of(r);
  }
  EXPECT_EQ(redriven_from.size(), rejected.size() + 1);
  for (const auto& [from, count] : redriven_from) {
    EXPECT_EQ(count, 1) << from;
  }
  ASSERT_EQ(origin_after.size(), n + rejected.size() + 1);

  // A second run finds everything in the ledger and publishes nothing.
  const auto second = run_redrive(s.cfg.kafka.brokers, s.dlq);
  ASSERT_EQ(second.code, 0) << second.err << second.out;
  const auto summary = nlohmann::json::parse(second.out);
  EXPECT_EQ(summary.at("moved"), 0);
  EXPECT_EQ(summary.at("already_redriven"), rejected.size() + 1);
  EXPECT_EQ(read_all(s.cfg.kafka.brokers, s.topic).size(), origin_after.size());
  EXPECT_EQ(read_all(s.cfg.kafka.brokers, ledger).size(), rejected.size() + 1);
}

}  // namespace
}  // namespace courier::testing

namespace courier::testing {
namespace {

// routes[].ordering "key" with on_dead_letter "park" on the mock cluster: shipment A's second
// update is rejected (400), its later updates follow it into the DLQ unattempted, in order, the
// first DLQ record naming them; once the partner is fixed, redrive returns them and the partner
// gets A's updates in the order they happened.
TEST(RedrivePipeline, AParkedKeysRecordsGoToTheDlqBehindItsRejectedOneAndReturnInOrder) {
  stand s{1};
  const std::string ledger = redrive::default_ledger_topic(s.dlq);
  s.cluster.create_topic(ledger, 1);
  s.route().ordering.mode = ordering_mode::key;
  s.route().ordering.on_dead_letter = dead_letter_followers::park;
  // Updates 0..3 of shipments A, B and C, round by round, on one partition: A's at 0, 3, 6, 9.
  {
    kafka::producer prod{s.cfg.kafka.brokers};
    for (int u = 0; u < 4; ++u) {
      for (const char* shipment : {"A", "B", "C"}) {
        prod.produce(
            s.topic, 0, std::string{shipment},
            R"({"shipment":")" + std::string{shipment} + R"(","update":)" + std::to_string(u) + "}",
            {}, 0);
      }
    }
    prod.flush(10s);
  }
  const auto at = [&](int offset) { return s.topic + ":0:" + std::to_string(offset); };
  s.receiver->set_key_rule(at(3), mock::key_rule{400, -1});

  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until(
      [&] {
        return s.receiver->snapshot().ok >= 9 && m.deliveries[delivery_counter::dead_lettered] >= 3;
      },
      30s))
      << "delivered " << s.receiver->snapshot().ok << ", dead-lettered "
      << m.deliveries[delivery_counter::dead_lettered];

  const auto dlq = read_all(s.cfg.kafka.brokers, s.dlq);
  ASSERT_EQ(dlq.size(), 3U);
  std::vector<std::string> dlq_keys;
  for (const auto& r : dlq) {
    dlq_keys.push_back(header_or_empty(r, idempotency_key_header));
  }
  EXPECT_EQ(dlq_keys, (std::vector<std::string>{at(3), at(6), at(9)})) << "behind it, in order";
  EXPECT_EQ(header_or_empty(dlq[0], error_class_header), "http_4xx");
  EXPECT_EQ(header_or_empty(dlq[0], followers_header), "6,9");
  EXPECT_EQ(header_or_empty(dlq[1], error_class_header), "key_parked");
  EXPECT_EQ(header_or_empty(dlq[2], error_class_header), "key_parked");
  std::vector<std::string> a_attempts;
  for (const auto& a : s.receiver->arrivals()) {
    if (a.idempotency_key == at(6) || a.idempotency_key == at(9)) {
      a_attempts.push_back(a.idempotency_key);
    }
  }
  EXPECT_TRUE(a_attempts.empty()) << "A's later updates were never attempted";

  s.receiver->set_key_rule(at(3), mock::key_rule{400, 0});  // the partner fixed its side
  const auto arrived_before = s.receiver->arrivals().size();
  const auto moved = run_redrive(s.cfg.kafka.brokers, s.dlq);
  ASSERT_EQ(moved.code, 0) << moved.err << moved.out;
  ASSERT_TRUE(wait_until(
      [&] {
        return s.receiver->snapshot().ok >= 12 && m.gauges[actors::route_gauge::in_flight] == 0;
      },
      30s))
      << "delivered " << s.receiver->snapshot().ok;
  p.stop();

  const auto arrivals = s.receiver->arrivals();
  std::vector<std::string> after;
  for (auto i = arrived_before; i < arrivals.size(); ++i) {
    after.push_back(arrivals[i].idempotency_key);
  }
  EXPECT_EQ(after, (std::vector<std::string>{at(3), at(6), at(9)}))
      << "A's updates 1..3 came back in the order they happened";
  EXPECT_EQ(s.receiver->snapshot().duplicates, 0U);
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), 3U)
      << "nothing went back to the DLQ";
}

}  // namespace
}  // namespace courier::testing
