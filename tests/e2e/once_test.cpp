// Once per event wherever Kafka lets us (issue 32), on the suite's real broker against nginx
// (tests/e2e/nginx_receiver.hpp: 503s by share, 200s after an echo_sleep, an access log with the
// Idempotency-Key "<topic>:<partition>:<offset>" of every request). Each scenario counts, by
// key, the records nginx answered 2xx more than once, and bounds them by what courier could not
// know was done: records in flight at a rebalance or a stop, or delivered after the last commit
// before a SIGKILL. Every one also says that all N records were delivered or dead-lettered,
// each once in Kafka.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/flow/offset_map.hpp"
#include "core/retry/retry_tiers.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "tests/e2e/nginx_receiver.hpp"
#include "tests/e2e/partition_log.hpp"
#include "tests/e2e/partner_contract_support.hpp"

namespace courier::e2e {
namespace {

// How many 2xx answers nginx gave beyond the first of each key.
std::size_t extra_deliveries(const std::vector<arrival>& log) {
  std::size_t extra = 0;
  for (const auto& [key, times] : delivered_keys(log)) {
    extra += static_cast<std::size_t>(times - 1);
  }
  return extra;
}

// "<topic>:<partition>:<offset>" -> ("<topic>[<partition>]", offset).
std::pair<std::string, std::int64_t> position_of(const std::string& key) {
  const auto last = key.rfind(':');
  const auto before = key.rfind(':', last - 1);
  return {key.substr(0, before) + "[" + key.substr(before + 1, last - before - 1) + "]",
          std::stoll(key.substr(last + 1))};
}

// The access log once nginx stopped writing to it (requests in its socket buffers from a
// courier that just died are answered and logged within milliseconds): the same length on two
// reads 200 ms apart, within 5 s.
const std::vector<arrival>& settled(nginx_receiver& nginx) {
  auto size = nginx.arrivals().size();
  wait_until(
      [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds{200});
        const auto now = nginx.arrivals().size();
        return std::exchange(size, now) == now;
      },
      5s);
  return nginx.arrivals();
}

// Unix ms of the first "partitions revoked" line of the instance's log that names a partition of
// `topic` (its "ts", ISO 8601 UTC with milliseconds); 0 when there is none.
std::int64_t first_revoke_ms(const std::string& log, const std::string& topic) {
  std::istringstream in{log};
  std::string line;
  while (std::getline(in, line)) {
    const auto doc = parse_line(line);
    if (doc.is_discarded() || !doc.is_object() || doc.value("event", "") != "partitions revoked" ||
        !doc.contains("partitions")) {
      continue;
    }
    bool of_topic = false;
    for (const auto& entry : doc.at("partitions")) {
      of_topic = of_topic || entry.get<std::string>().rfind(topic + "[", 0) == 0;
    }
    if (!of_topic) {
      continue;
    }
    std::tm t{};
    int ms = 0;
    const auto ts = doc.value("ts", "");
    if (std::sscanf(ts.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &t.tm_year, &t.tm_mon, &t.tm_mday,
                    &t.tm_hour, &t.tm_min, &t.tm_sec, &ms) != 7) {
      ADD_FAILURE() << "a log line's ts is not ISO 8601 with ms: " << ts;
      return 0;
    }
    t.tm_year -= 1900;
    t.tm_mon -= 1;
    return static_cast<std::int64_t>(timegm(&t)) * 1000 + ms;
  }
  return 0;
}

// Whether the instance's log has an assignment naming the source topic.
bool holds_source(const child_process& c, const std::string& topic) {
  bool found = false;
  for_each_partition_event(c.log(), [&](const std::string& event, const std::string& p) {
    found = found || (event == "partitions assigned" && p.rfind(topic + "[", 0) == 0);
  });
  return found;
}

// The source's partitions an instance holds at the end of its log.
std::set<std::string> source_held(const child_process& c, const std::string& topic) {
  std::set<std::string> out;
  for (const auto& p : held_partitions(c.log())) {
    if (p.rfind(topic + "[", 0) == 0) {
      out.insert(p);
    }
  }
  return out;
}

// One scenario's receiver, topic and config: n records seeded (each one's key known), a route of
// `max_in_flight` to nginx with `percent_503` answered 503 and the others 200 after `latency_ms`.
struct once_scenario {
  once_scenario(const std::string& name, std::size_t records, int partition_count, int percent_503,
                int latency_ms, int max_in_flight,
                const nlohmann::json& route_patch = nlohmann::json::object(),
                const nlohmann::json& kafka_properties = nlohmann::json::object())
      : scratch{"e2e-once-" + name, temp_dir::keep_if_failed},
        nginx{scratch.path(), percent_503, latency_ms},
        s{unique_name("once-" + name + "-group"), unique_name("once-" + name), nginx.url(),
          max_in_flight, 100},
        n{records},
        partitions{partition_count} {
    create_topic(s.topic, partitions);
    seeded = seed_traced(s.topic, n);
    config = prepare_with(s, route_patch, scratch.path(), kafka_properties);
    dlq = default_dlq_topic(s.topic);
  }

  const std::filesystem::path& dir() const { return scratch.path(); }
  std::size_t delivered() { return delivered_keys(nginx.arrivals()).size(); }

  // Every record delivered or dead-lettered, and the source committed to its end.
  void expect_all_done(std::initializer_list<child_process*> running) {
    ASSERT_TRUE(wait_all_done(nginx, n, dlq, partitions, 180s, running));
    ASSERT_TRUE(committed_reaches(s.group, s.topic, partitions, static_cast<std::int64_t>(n)));
  }

  // Each record delivered once or in the DLQ once (at most `max_extra` 2xx beyond the first of
  // a key); returns how many 2xx came beyond the first of their key.
  std::size_t expect_each_once(std::size_t max_extra) {
    const auto& log = settled(nginx);
    const auto extra = extra_deliveries(log);
    std::cout << "duplicates: " << extra << " (bound " << max_extra << ")" << std::endl;
    EXPECT_LE(extra, max_extra);
    expect_each_record_once(log, seeded, dlq_keys(dlq, partitions), max_extra);
    return extra;
  }

  temp_dir scratch;
  nginx_receiver nginx;
  courier_settings s;
  std::size_t n;
  int partitions;
  std::map<std::string, std::string> seeded;
  std::filesystem::path config;
  std::string dlq;
};

// 1. A second instance joins while the first delivers, then the first is stopped with SIGTERM
// (10,000 records, 5% 503s, 20 ms per 2xx). With cooperative rebalancing the partitions the first
// keeps never stop delivering for more than a second during the join, and only what an instance
// had in flight when it gave a partition up (at the join, at the stop) can arrive twice.
TEST(EndToEndOnce, AJoinThenASigtermDeliverTwiceAtMostWhatWasInFlightAndKeptPartitionsFlow) {
  constexpr int max_in_flight = 16;
  // Fetches of 8 KB a partition (about 28 records), so the route's records come interleaved
  // from every partition: with the default 1 MB each partition's 1,250 records came in one
  // batch, handed out after the one before it, and the partitions a kept could be ones it had
  // not reached yet when b started.
  once_scenario sc{"join",
                   10000,
                   8,
                   /*percent_503=*/5,
                   /*latency_ms=*/20,
                   max_in_flight,
                   nlohmann::json::object(),
                   {{"max.partition.fetch.bytes", "8192"}}};
  const auto& topic = sc.s.topic;

  auto a = start_courier(sc.config, sc.dir(), "courier-a");
  ASSERT_TRUE(wait_until([&] { return sc.delivered() >= 1500 || !a->running(); }, 60s))
      << tail(a->log());
  ASSERT_TRUE(a->running()) << tail(a->log());
  ASSERT_EQ(source_held(*a, topic).size(), static_cast<std::size_t>(sc.partitions))
      << tail(a->log());

  const auto join_started = wall_ms();
  auto b = start_courier(sc.config, sc.dir(), "courier-b");
  // The join is over once b holds its share and every partition is held by one of them.
  ASSERT_TRUE(wait_until(
      [&] {
        auto held = source_held(*a, topic);
        const auto of_b = source_held(*b, topic);
        held.insert(of_b.begin(), of_b.end());
        return (held.size() == static_cast<std::size_t>(sc.partitions) && !of_b.empty()) ||
               !b->running();
      },
      30s))
      << tail(a->log()) << "\n"
      << tail(b->log());
  const auto join_ended = wall_ms();
  const auto kept = source_held(*a, topic);
  const auto given_up = given_up_partitions(a->log());
  std::cout << "a kept " << kept.size() << " source partitions, b took "
            << source_held(*b, topic).size() << std::endl;
  EXPECT_EQ(kept.size(), static_cast<std::size_t>(sc.partitions / 2))
      << "cooperative-sticky shares the source evenly\n"
      << tail(a->log());

  ASSERT_LT(sc.delivered(), sc.n) << "everything was delivered before the first instance stopped";
  expect_clean_stop(*a);
  sc.expect_all_done({b.get()});
  expect_clean_stop(*b);

  // The partitions a kept: none of them was given up, and a's flow of deliveries, which served
  // them, had no pause longer than a second from b's start until both held every partition (if
  // its records were all answered before the window's end, they are done, not paused). The flow,
  // not each partition: a route hands its records out in the order they were fetched, a fetched
  // batch of one partition after another's, so a partition waits its turn behind the others'
  // batches with or without a rebalance (CI saw a kept partition wait 0.5 s behind the ones a
  // was about to give up, then 0.5 s for the rebalance). a's flow is the kept partitions'
  // answers, and those of the partitions it gave up until its revoke of them ended. An eager
  // rebalance revokes every partition at once, which stops the flow.
  const auto revoked_ms = first_revoke_ms(a->log(), topic);
  ASSERT_GT(revoked_ms, join_started) << "a gave nothing up during the join\n" << tail(a->log());
  std::vector<std::int64_t> answered;
  std::int64_t last_answer = 0;
  std::int64_t before_join = 0;
  for (const auto& r : settled(sc.nginx)) {
    const auto [partition, offset] = position_of(r.key);
    if (kept.count(partition) > 0 || r.ms <= revoked_ms) {
      last_answer = std::max(last_answer, r.ms);
      if (r.ms < join_started) {
        before_join = std::max(before_join, r.ms);
      } else if (r.ms <= join_ended) {
        answered.push_back(r.ms);
      }
    }
  }
  for (const auto& p : kept) {
    EXPECT_EQ(given_up.count(p), 0U) << p << " was revoked though a kept it";
  }
  ASSERT_GE(before_join, join_started - 1000) << "a was not delivering when b started";
  std::sort(answered.begin(), answered.end());
  std::int64_t longest = 0;
  std::int64_t previous = before_join;
  for (const auto t : answered) {
    longest = std::max(longest, t - previous);
    previous = t;
  }
  if (last_answer > join_ended) {
    longest = std::max(longest, join_ended - previous);
  }
  std::cout << "a's flow: longest pause " << longest << " ms during the join ("
            << join_ended - join_started << " ms)" << std::endl;
  EXPECT_LE(longest, 1000) << "a stopped delivering the partitions it kept during the join";
  // What an instance had in flight when it gave a partition up: at the join and at the stop.
  sc.expect_each_once(2U * max_in_flight);
}

// The keys of the records that went through a retry tier (read from every tier to its end).
std::set<std::string> tiered_keys(const courier_settings& s, int partitions) {
  std::set<std::string> keys;
  for (const auto delay : s.retry_tiers) {
    for (const auto& r :
         read_to_end(tier_topic(s.topic, delay), partitions, "read_uncommitted", 30s)) {
      keys.emplace(find_header(r.headers, "courier.idempotency.key").value_or("(none)"));
    }
  }
  return keys;
}

// The source's records the group's commits say are done: below the committed offset, or in
// its offset map.
struct committed_state {
  std::map<std::string, std::int64_t> offset;
  std::map<std::string, done_offsets> above;

  bool covers(const std::string& partition, std::int64_t o) const {
    const auto it = offset.find(partition);
    if (it == offset.end()) {
      return false;
    }
    if (o < it->second) {
      return true;
    }
    const auto m = above.find(partition);
    return m != above.end() && m->second.contains(o);
  }
};

committed_state read_commits(const courier_settings& s, int partitions) {
  committed_state state;
  for (const auto& [p, commit] : kafka::committed_commits(kafka_environment::bootstrap(), s.group,
                                                          s.topic, partitions, 15s)) {
    const auto name = s.topic + "[" + std::to_string(p) + "]";
    state.offset[name] = commit.offset;
    auto& done = state.above[name];
    const auto read = decode_offset_map(commit.metadata, commit.offset, done);
    EXPECT_TRUE(read == offset_map_read::read || read == offset_map_read::none)
        << name << ": " << to_string(read);
  }
  return state;
}

// 2. SIGKILL three times while 20% of the answers are 503: what arrives twice after each kill is
// at most what was delivered after the last commit before it (the records nginx answered 2xx
// that neither the committed offset nor its offset map covers), and that is about a commit's
// worth of records, not everything above a record waiting in its backoff.
TEST(EndToEndOnce, SigkillsDeliverAgainAtMostWhatWasDeliveredAfterTheLastCommit) {
  constexpr int max_in_flight = 32;
  constexpr int crashes = 3;
  // Backoffs of 250 ms to 2 s: records wait in them while later ones of their partition are
  // delivered, which is what the offset map is for. Ten attempts keep the tiers nearly empty.
  once_scenario sc{"kill",
                   10000,
                   4,
                   /*percent_503=*/20,
                   /*latency_ms=*/20,
                   max_in_flight,
                   {{"retry", {{"initial", "250ms"}, {"max", "2s"}, {"max_attempts", 10}}}}};

  std::vector<std::size_t> at_kill_arrivals;
  std::vector<std::set<std::string>> acked_at_kill;
  std::vector<committed_state> commits_at_kill;
  auto courier = start_courier(sc.config, sc.dir(), "courier-0");
  for (int crash = 1; crash <= crashes; ++crash) {
    const auto target = crash * sc.n / (crashes + 1);
    ASSERT_TRUE(wait_until([&] { return sc.delivered() >= target || !courier->running(); }, 90s))
        << tail(courier->log());
    ASSERT_TRUE(courier->running()) << tail(courier->log());
    courier->kill_now();
    const auto& log = settled(sc.nginx);
    at_kill_arrivals.push_back(log.size());
    std::set<std::string> acked;
    for (const auto& [key, times] : delivered_keys(log)) {
      acked.insert(key);
    }
    acked_at_kill.push_back(std::move(acked));
    commits_at_kill.push_back(read_commits(sc.s, sc.partitions));
    courier = start_courier(sc.config, sc.dir(), "courier-" + std::to_string(crash));
  }
  sc.expect_all_done({courier.get()});
  expect_clean_stop(*courier);

  const auto& log = settled(sc.nginx);
  const auto tiered = tiered_keys(sc.s, sc.partitions);
  std::cout << tiered.size() << " records went through a retry tier" << std::endl;
  for (int crash = 0; crash < crashes; ++crash) {
    // Delivered after the last commit: answered 2xx, and either not covered by the source's
    // commit or moved through a tier (whose copy's commit this does not read).
    std::size_t after_commit = 0;
    for (const auto& key : acked_at_kill[crash]) {
      const auto [partition, offset] = position_of(key);
      const bool covered =
          commits_at_kill[crash].covers(partition, offset) && tiered.count(key) == 0;
      after_commit += covered ? 0 : 1;
    }
    // Delivered again: a 2xx after this kill (and before the next) for a key answered before it.
    const auto from = at_kill_arrivals[crash];
    const auto to = crash + 1 < crashes ? at_kill_arrivals[crash + 1] : log.size();
    std::set<std::string> again;
    for (auto i = from; i < to; ++i) {
      const auto& r = log[i];
      if (r.status >= 200 && r.status < 300 && acked_at_kill[crash].count(r.key) > 0) {
        again.insert(r.key);
      }
    }
    std::cout << "kill " << crash + 1 << ": " << again.size() << " delivered again, "
              << after_commit << " delivered after the last commit" << std::endl;
    EXPECT_LE(again.size(), after_commit) << "kill " << crash + 1;
    EXPECT_LE(after_commit, 8U * max_in_flight)
        << "kill " << crash + 1 << ": the commits fell far behind the deliveries";
  }
  sc.expect_each_once(3U * 8U * max_in_flight);
}

// 3. The broker is down 8-20 s, longer than the session timeout, under load (10% 503s at 15 ms),
// with courier's own group settings (no test overrides), while courier delivers what it had
// fetched: the assignment is lost, and once the broker is back courier commits what it delivered
// meanwhile instead of delivering it again; at most what was in flight arrives twice, and the
// commits that could not reach the coordinator take a few log lines, not one per attempt.
TEST(EndToEndOnce, ABrokerOutageLongerThanTheSessionDeliversAgainAtMostWhatWasInFlight) {
  if (!kafka_environment::controllable()) {
    GTEST_SKIP() << "the broker at " << kafka_environment::bootstrap()
                 << " is not kafka-local's; cannot stop it";
  }
  constexpr int max_in_flight = 64;
  constexpr int partitions = 4;
  // courier's defaults for the group, not the suite's faster heartbeat.
  const nlohmann::json defaults{{"heartbeat.interval.ms", nullptr},
                                {"session.timeout.ms", nullptr}};
  once_scenario sc{"outage",
                   10000,
                   partitions,
                   /*percent_503=*/10,
                   /*latency_ms=*/15,
                   max_in_flight,
                   nlohmann::json::object(),
                   defaults};

  auto courier = start_courier(sc.config, sc.dir(), "courier");
  // Early (before every partition has a commit of its own): the lost assignment must keep what
  // was delivered since the partitions were first fetched.
  ASSERT_TRUE(wait_until([&] { return sc.delivered() >= 500 || !courier->running(); }, 60s))
      << tail(courier->log());
  // Counted before the kill: under load the kill command itself takes a while, and courier's
  // prefetch may be delivered by the time it returns.
  const auto at_kill = sc.delivered();
  ASSERT_EQ(run_command(kafka_local_command("kill")), 0);
  const auto killed = std::chrono::steady_clock::now();
  // Down until courier's session is over (its consumer says the partitions are lost), 8 s at
  // least, 20 s at most.
  const bool lost = wait_until(
      [&] {
        return courier->log().find(R"("event":"partitions lost")") != std::string::npos ||
               !courier->running();
      },
      20s);
  std::this_thread::sleep_until(killed + 8s);  // the outage's length, not a wait for a condition
  const auto while_down = sc.delivered() - at_kill;
  ASSERT_EQ(run_command(kafka_local_command("start")), 0) << "the broker did not come back";
  ASSERT_TRUE(lost && courier->running()) << tail(courier->log());
  std::cout << while_down << " records delivered while the broker was down" << std::endl;
  EXPECT_GT(while_down, 0U) << "courier stopped delivering its fetched records in the outage";

  sc.expect_all_done({courier.get()});
  expect_clean_stop(*courier);
  sc.expect_each_once(max_in_flight);
  const auto log = courier->log();
  std::size_t commit_lines = 0;
  for (auto at = log.find(R"("event":"offset commit failed")"); at != std::string::npos;
       at = log.find(R"("event":"offset commit failed")", at + 1)) {
    ++commit_lines;
  }
  std::cout << commit_lines << " log lines of failed commits" << std::endl;
  EXPECT_LE(commit_lines, 3U * partitions) << "a few lines per partition, not one per attempt";
}

// 4. Scale 1 -> 3 -> 1 under load (8 partitions, 5% 503s, receipts on): each join and each
// stop moves partitions, nothing is lost, what arrives twice is at most what was in flight at
// each of the four changes, and `courier audit` accounts for every record from Kafka alone.
TEST(EndToEndOnce, ScalingOneToThreeToOneLosesNothingAndDeliversTwiceOnlyWhatWasInFlight) {
  constexpr int max_in_flight = 16;
  constexpr std::size_t changes = 4;
  once_scenario sc{
      "scale",           12000,         8,
      /*percent_503=*/5,
      /*latency_ms=*/20, max_in_flight, {{"receipts_topic", unique_name("once-scale-receipts")}}};
  const auto& topic = sc.s.topic;
  // Waits for `more` deliveries beyond now, with every instance of `running` up.
  const auto progress = [&](std::size_t more, std::initializer_list<child_process*> running) {
    const auto target = sc.delivered() + more;
    return wait_until(
        [&] {
          return sc.delivered() >= target ||
                 std::any_of(running.begin(), running.end(), [](auto* c) { return !c->running(); });
        },
        60s);
  };

  auto a = start_courier(sc.config, sc.dir(), "courier-a");
  ASSERT_TRUE(progress(1000, {a.get()}));
  auto b = start_courier(sc.config, sc.dir(), "courier-b");
  ASSERT_TRUE(wait_until([&] { return holds_source(*b, topic) || !b->running(); }, 30s))
      << tail(b->log());
  ASSERT_TRUE(progress(1000, {a.get(), b.get()}));
  auto c = start_courier(sc.config, sc.dir(), "courier-c");
  ASSERT_TRUE(wait_until([&] { return holds_source(*c, topic) || !c->running(); }, 30s))
      << tail(c->log());
  ASSERT_TRUE(progress(1000, {a.get(), b.get(), c.get()}));
  ASSERT_LT(sc.delivered(), sc.n) << "everything was delivered with three instances";
  for (auto* leaving : {c.get(), b.get()}) {
    expect_clean_stop(*leaving);
    ASSERT_TRUE(progress(500, {a.get()})) << tail(a->log());
  }
  sc.expect_all_done({a.get()});
  EXPECT_EQ(source_held(*a, topic).size(), static_cast<std::size_t>(sc.partitions))
      << "the last instance holds every source partition again\n"
      << tail(a->log());
  expect_clean_stop(*a);
  sc.expect_each_once(changes * max_in_flight);
  child_process audit{COURIER_BINARY,
                      {"audit", "--config", sc.config.string(), "--route", "shipments"},
                      {},
                      (sc.dir() / "audit.log").string(),
                      {"KAFKA_BROKERS"}};
  EXPECT_EQ(audit.wait_exit(120s), std::optional<int>{0})
      << "courier audit: a record is unaccounted\n"
      << tail(audit.log());
}

}  // namespace
}  // namespace courier::e2e
