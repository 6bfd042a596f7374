#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/kafka/admin.hpp"
#include "core/kafka/consumer.hpp"
#include "tests/integration/stand.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

// "<topic>:<partition>:<offset>" -> (partition, offset)
std::pair<int, long long> parse_key(const std::string& key, const std::string& topic) {
  const auto prefix = topic + ":";
  EXPECT_EQ(key.rfind(prefix, 0), 0U) << key;
  const auto rest = key.substr(prefix.size());
  const auto colon = rest.find(':');
  return {std::stoi(rest.substr(0, colon)), std::stoll(rest.substr(colon + 1))};
}

// Every key the receiver saw names a seeded record: partitions in range and, per partition,
// offsets 0..k-1 without gaps, the whole adding up to `seeded`.
void expect_keys_are_exactly_the_seeded_records(const std::set<std::string>& keys,
                                                const std::string& topic, int partitions,
                                                std::size_t seeded) {
  std::map<int, std::set<long long>> by_partition;
  for (const auto& k : keys) {
    const auto [p, o] = parse_key(k, topic);
    ASSERT_GE(p, 0);
    ASSERT_LT(p, partitions);
    by_partition[p].insert(o);
  }
  std::size_t total = 0;
  for (const auto& [p, offsets] : by_partition) {
    EXPECT_EQ(*offsets.begin(), 0) << "partition " << p;
    EXPECT_EQ(*offsets.rbegin(), static_cast<long long>(offsets.size()) - 1) << "partition " << p;
    total += offsets.size();
  }
  EXPECT_EQ(total, seeded);
}

// Runs the pipeline on the stand until the receiver has `n` records, then checks each seeded
// record arrived once, signed, and every one is committed.
void expect_every_seeded_record_delivered_once_and_committed(stand& s, int partitions,
                                                             std::size_t n) {
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= n; }, 60s))
      << "delivered at the receiver: " << s.receiver->snapshot().ok;
  ASSERT_TRUE(s.wait_group_settled(*p.routes().front().metrics));
  p.stop();

  const auto st = s.receiver->snapshot();
  EXPECT_EQ(st.ok, n);
  EXPECT_EQ(st.unique_keys, n);
  EXPECT_EQ(st.fail_401, 0U) << "the receiver verified every signature";
  expect_keys_are_exactly_the_seeded_records(delivered_keys(*s.receiver), s.topic, partitions, n);

  // Everything delivered is committed: the group's offsets add up to the seeded count.
  EXPECT_EQ(s.committed_total(), static_cast<long long>(n));
}

TEST(Pipeline, DeliversEverySeededRecordOnceToTheReceiver) {
  stand s{4};
  s.seed(400);
  expect_every_seeded_record_delivered_once_and_committed(s, 4, 400);
}

// Answers fewer than wake the pool at once (16), while other attempts hang unanswered, reach the
// pool when their moment on the io thread is due: were the deferred wake-up lost, they would sit
// in the inbox, undelivered as far as courier knows, until the hanging attempts time out.
TEST(Pipeline, AFewAnswersGatheredWhileOthersHangReachThePoolWhenTheirMomentIsDue) {
  mock::server_settings ws;
  ws.initial.fail_rate_timeout = 0.3;  // these requests hang for longer than the test waits
  ws.hang_for = 120s;
  ws.seed = 5;
  stand s{1, ws};
  s.route().http.timeout = 110s;
  s.route().http.gather_answers = 100ms;
  s.route().breaker.trip_after = 1000;
  s.seed(12);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, topology::pipeline_options{500ms, 3}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until(
      [&] {
        const auto st = s.receiver->snapshot();
        return st.ok + st.fail_timeout >= 12;
      },
      30s))
      << "answered: " << s.receiver->snapshot().ok << ", hanging "
      << s.receiver->snapshot().fail_timeout;
  const auto answered = s.receiver->snapshot().ok;
  ASSERT_GT(s.receiver->snapshot().fail_timeout, 0U) << "the seed hangs some attempts";
  ASSERT_GT(answered, 0U);
  ASSERT_LT(answered, 16U);
  EXPECT_TRUE(
      wait_until([&] { return m.deliveries[delivery_counter::delivered].load() >= answered; }, 30s))
      << "delivered as far as courier knows: " << m.deliveries[delivery_counter::delivered].load()
      << " of " << answered;
  p.stop();
}

// gather_answers 0: every first answer wakes the pool, as before the gathering.
TEST(Pipeline, WithoutGatheringEveryRecordIsDeliveredAndCommittedToo) {
  stand s{4};
  s.route().http.gather_answers = 0ms;
  s.seed(200);
  expect_every_seeded_record_delivered_once_and_committed(s, 4, 200);
}

TEST(Pipeline, DeliversEverythingWhenHalfTheAnswersAre503AndKeepsEachRecordsKey) {
  mock::server_settings ws;
  ws.initial.fail_rate_503 = 0.5;
  ws.seed = 11;
  stand s{4, ws};
  s.route().retry.max_attempts = 3;
  s.seed(300);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 300; }, 90s))
      << "delivered at the receiver: " << s.receiver->snapshot().ok;
  const auto& m = *p.routes().front().metrics;
  p.stop();

  const auto st = s.receiver->snapshot();
  EXPECT_EQ(st.ok, 300U);
  EXPECT_EQ(st.unique_keys, 300U) << "a retry was sent with another key";
  EXPECT_GT(st.fail_503, 0U);
  EXPECT_GT(m.deliveries[delivery_counter::retries].load(), 0U);
  // A record sent with a new key on a retry would show up as an extra key here.
  const auto attempts = s.receiver->attempts_by_key();
  EXPECT_EQ(attempts.size(), 300U);
  const auto retried =
      std::count_if(attempts.begin(), attempts.end(), [](const auto& kv) { return kv.second > 1; });
  EXPECT_GT(retried, 0);
  expect_keys_are_exactly_the_seeded_records(delivered_keys(*s.receiver), s.topic, 4, 300);
}

TEST(Pipeline, OutageOpensTheBreakerPausesThePartitionsAndBothRecover) {
  stand s{4};
  s.route().breaker.trip_after = 5;
  s.route().breaker.open_timeout = 400ms;
  s.route().pause_after = 300ms;
  s.seed(300);
  s.receiver->set_outage_until(std::chrono::steady_clock::now() + 24h);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until([&] { return m.consumer[consumer_counter::consumed].load() > 0; }, 30s));
  // The outage lasts until the breaker opened and the partitions were paused.
  ASSERT_TRUE(wait_until(
      [&] {
        return m.actors[actors::route_counter::pauses].load() > 0 &&
               m.gauges[actors::route_gauge::paused_partitions].load() > 0;
      },
      30s))
      << "breaker trips: " << m.actors[actors::route_counter::breaker_trips].load()
      << ", pauses: " << m.actors[actors::route_counter::pauses].load();
  EXPECT_GE(m.actors[actors::route_counter::breaker_trips].load(), 1U);
  s.receiver->set_outage_until(std::chrono::steady_clock::now());

  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 300; }, 60s))
      << "delivered at the receiver: " << s.receiver->snapshot().ok;
  ASSERT_TRUE(wait_until(
      [&] {
        return m.breaker_state.load() == static_cast<int>(breaker_state::closed) &&
               m.gauges[actors::route_gauge::paused_partitions].load() == 0;
      },
      10s));
  EXPECT_GE(m.actors[actors::route_counter::pauses].load(), 1U);
  EXPECT_GE(m.actors[actors::route_counter::resumes].load(), 1U);
  p.stop();
  expect_keys_are_exactly_the_seeded_records(delivered_keys(*s.receiver), s.topic, 4, 300);
}

TEST(Pipeline, CommitsOnlyDeliveredOffsetsSoARestartSkipsNothingUndelivered) {
  mock::server_settings ws;
  ws.initial.fail_rate_timeout = 0.3;  // these requests hang: still in flight when we stop
  ws.hang_for = 120s;
  ws.seed = 5;
  stand s{2, ws};
  s.route().http.timeout = 60s;
  s.route().http.max_connections = 256;  // the hanging requests hold theirs
  s.route().breaker.trip_after = 1000;
  s.seed(200);
  {
    caf::actor_system sys{s.sys_cfg};
    topology::pipeline p{sys, s.cfg, topology::pipeline_options{500ms, 3}};
    ASSERT_TRUE(wait_until(
        [&] {
          const auto st = s.receiver->snapshot();
          return st.ok + st.fail_timeout >= 200;
        },
        60s));
    p.stop();
  }
  const auto delivered = delivered_keys(*s.receiver);
  ASSERT_LT(delivered.size(), 200U) << "the chaos must leave something undelivered";
  const auto committed =
      kafka::committed_offsets(s.cfg.kafka.brokers, s.cfg.kafka.group_id, s.topic, 2, 10s);
  for (int partition = 0; partition < 2; ++partition) {
    const long long c = committed.count(partition) ? committed.at(partition) : 0;
    for (long long o = 0; o < c; ++o) {
      EXPECT_TRUE(
          delivered.count(s.topic + ":" + std::to_string(partition) + ":" + std::to_string(o)))
          << "offset " << o << " of partition " << partition << " committed but never delivered";
    }
  }

  // A consumer of the same group starts exactly at the committed offsets.
  std::map<int, long long> first_fetched;
  {
    kafka::consumer c{kafka::consumer_settings{
                          s.cfg.kafka.brokers, s.cfg.kafka.group_id, {s.topic}, fast_group(), {}},
                      {}};
    const bool both = wait_until(
        [&] {
          for (auto& r : c.poll(100ms, 500)) {
            first_fetched.emplace(r.partition, r.offset);
          }
          return first_fetched.size() == 2;
        },
        30s);
    c.close();
    ASSERT_TRUE(both) << "the restarted consumer fetched from " << first_fetched.size()
                      << " of 2 partitions";
  }
  for (const auto& [partition, first] : first_fetched) {
    const long long c = committed.count(partition) ? committed.at(partition) : 0;
    EXPECT_EQ(first, c) << "partition " << partition;
  }

  // With the receiver healthy again, a restarted courier delivers the rest.
  s.receiver->set_chaos(mock::chaos{});
  {
    caf::actor_system sys{s.sys_cfg};
    s.route().retry.max_attempts = 4;
    topology::pipeline p{sys, s.cfg, {}};
    ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 200; }, 60s))
        << "delivered at the receiver: " << s.receiver->snapshot().ok;
    p.stop();
  }
  expect_keys_are_exactly_the_seeded_records(delivered_keys(*s.receiver), s.topic, 2, 200);
}

}  // namespace
}  // namespace courier::testing
