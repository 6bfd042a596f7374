// Chaos end-to-end: courier SIGKILLed at random moments while the receiver answers 20% 503s,
// and courier SIGTERMed in the middle of a consumer-group rebalance. Against the suite's real
// broker (tools/kafka-local), like e2e_test.cpp, whose global environment provides it.

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/retry/retry_tiers.hpp"
#include "demo/topic_reader.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "tests/e2e/partition_log.hpp"

namespace courier::e2e {
namespace {

using steady = std::chrono::steady_clock;

const std::string assigned_event = R"("event":"partitions assigned")";
const std::string revoked_event = R"("event":"partitions revoked")";

std::int64_t ms_since(steady::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - t).count();
}

// The Idempotency-Keys of the records in a DLQ (each record's courier.idempotency.key), read
// until `expected` arrived or `timeout` passed; a key that is there twice is there twice.
std::vector<std::string> dlq_keys(const std::string& dlq, std::size_t expected,
                                  std::chrono::milliseconds timeout) {
  std::vector<std::string> keys;
  for (const auto& r : demo::read_topic(kafka_environment::bootstrap(), dlq, expected, timeout)) {
    keys.emplace_back(find_header(r.headers, "courier.idempotency.key").value_or("(none)"));
  }
  return keys;
}

// Offers each DLQ key to the receiver once more, with its chaos and signature check off: a
// key it had never acknowledged counts as `ok`, one it had as a duplicate. Afterwards ok == N
// holds exactly when every seeded record was delivered or dead-lettered, never both.
// Returns how many of them the receiver had acknowledged before (delivered and dead-lettered).
std::uint64_t offer_dlq_keys_to_receiver(const webhook& w, const std::vector<std::string>& keys) {
  const auto port = port_of(w);
  EXPECT_EQ(http_post(port, "/chaos/clear", "", {}, 2s), 200);
  EXPECT_EQ(http_post(port, "/secret", R"({"hmac_secret": null})", {}, 2s), 200);
  const auto before = w.stats();
  for (const auto& key : keys) {
    EXPECT_EQ(http_post(port, "/deliver", "{}", {{"Idempotency-Key", key}}, 5s), 200) << key;
  }
  const auto after = w.stats();
  EXPECT_EQ(after.ok + after.duplicates, before.ok + before.duplicates + keys.size()) << after.raw;
  return after.duplicates - before.duplicates;
}

// A seed for the random moments: COURIER_CHAOS_SEED repeats a run's choices.
std::uint64_t chaos_seed() {
  if (const char* s = std::getenv("COURIER_CHAOS_SEED"); s != nullptr && *s != '\0') {
    return std::stoull(s);
  }
  return std::random_device{}();
}

const std::set<std::string> rebalance_events{"partitions assigned",
                                             "partitions revoked",
                                             "stopping",
                                             "draining",
                                             "assigned while draining: leaving the group at once",
                                             "consumer closed",
                                             "stopped"};

// The lines of a log whose event is one of `events`, for the test's output.
std::string lines_of(const std::string& log, const std::set<std::string>& events) {
  std::string out;
  std::istringstream in{log};
  std::string line;
  while (std::getline(in, line)) {
    const auto doc = parse_line(line);
    if (!doc.is_discarded() && doc.is_object() && events.count(doc.value("event", "")) > 0) {
      out += "  " + line + "\n";
    }
  }
  return out;
}

std::string join(const std::set<std::string>& items) {
  std::string out;
  for (const auto& i : items) {
    out += (out.empty() ? "" : " ") + i;
  }
  return out;
}

// 1. With 20% 503s and SIGKILL at three random moments, each crash re-delivers no more than the
// head-of-line bound allows, each restarted instance delivers again within 10 s, and in the end
// every record was delivered or dead-lettered, exactly once, and the source is committed to N.
TEST(EndToEndChaos, SigkillsUnder503sRedeliverWithinTheHeadOfLineBoundAndRestartsDeliverWithin10s) {
  constexpr std::uint64_t n = 8000;
  constexpr int partitions = 4;
  constexpr std::size_t head_of_line_records = 50;
  constexpr int max_in_flight = 32;
  constexpr int latency_ms = 40;
  // Below the receiver's latency: at most one round of answered records is stored but not yet
  // committed when courier dies.
  constexpr int commit_interval_ms = 20;
  constexpr int crashes = 3;
  const auto seed_value = chaos_seed();
  std::cout << "chaos seed " << seed_value << " (COURIER_CHAOS_SEED=" << seed_value
            << " repeats the kill moments)" << std::endl;
  RecordProperty("chaos_seed", std::to_string(seed_value));
  std::mt19937_64 random{seed_value};

  const temp_dir scratch{"e2e-chaos-sigkill", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  webhook w{dir, latency_ms, /*fail_rate_503=*/0.2};
  const courier_settings s{unique_name("chaos-group"), unique_name("chaos"), w.url(), max_in_flight,
                           commit_interval_ms};
  create_topic(s.topic, partitions);
  seed(s.topic, 0, n);
  // Backoffs long enough (up to 250, 500, 1000 ms before attempts 2 to 4) that a head
  // waiting in one holds its partition back far beyond the bound, so the bound has work.
  const auto config = prepare_with(s,
                                   {{"head_of_line_records", head_of_line_records},
                                    {"retry", {{"initial", "250ms"}, {"max", "2s"}}}},
                                   dir);
  const auto dlq_topic = default_dlq_topic(s.topic);

  // How far each crash may set the receiver back. At the crash, a partition's restart fetches
  // again from its committed offset everything up to the last offset courier had taken, and
  // each of those records the receiver had acknowledged arrives a second time. Per partition
  // that span is:
  //  - the head-of-line span, from the head (the lowest record in flight, which the stored
  //    offset never passes) to the last record taken: head_of_line_guard reports the head once
  //    more than head_of_line_records offsets lie between them, and the delivery pool moves it
  //    to the next tier at once if it waits in its backoff, or at the end of its current
  //    attempt (one receiver latency, or an instant 503). Until it is gone the partition goes
  //    on delivering, at most one round of max_in_flight records (the route's in-flight bound
  //    per latency), so the span stays below head_of_line_records + max_in_flight;
  //  - plus the records stored but not auto-committed yet: with auto.commit.interval.ms below
  //    the latency, at most one round of max_in_flight answers, shared by all partitions (the
  //    second max_in_flight of the SIGKILL test in e2e_test.cpp), which the per-partition
  //    max_in_flight above already covers whenever fewer than all partitions ran at the bound.
  // Hence partitions x (head_of_line_records + max_in_flight) per crash. (The tier partitions
  // have their own guards; the records in them at a crash are the few that failed four times
  // or were expedited, and their copies' re-deliveries count in the same sum.)
  constexpr std::uint64_t bound = partitions * (head_of_line_records + max_in_flight);

  std::vector<receiver_stats> at_kill;  // settled, right after each SIGKILL
  std::vector<std::int64_t> committed_at_kill;
  std::vector<std::int64_t> restart_to_delivery_ms;
  // The kill moments: after a random number of new deliveries since the (re)start, so each
  // kill lands while courier delivers and the three together leave more than half the topic.
  std::uniform_int_distribution<std::uint64_t> gap{n / 16, n / 6};
  auto courier = start_courier(config, dir, "courier-0");
  std::uint64_t ok_at_start = 0;
  for (int crash = 1; crash <= crashes; ++crash) {
    const auto target = ok_at_start + gap(random);
    ASSERT_TRUE(wait_delivered(w, target, 60s, {courier.get()}))
        << "crash " << crash << ": " << w.stats().raw << "\n"
        << tail(courier->log());
    // Prometheus' linter accepts what this instance serves under the 503s, just before it dies.
    if (const auto admin = admin_port_in(courier->log()); admin > 0) {
      const auto scrape = http_get(admin, "/metrics", 2s).value_or("");
      EXPECT_EQ(promtool_complaints(scrape, dir / ("scrape-" + std::to_string(crash) + ".prom")),
                "")
          << scrape;
    } else {
      ADD_FAILURE() << "no admin listener in the log of crash " << crash << "'s instance";
    }
    courier->kill_now();
    at_kill.push_back(w.settled_stats());
    committed_at_kill.push_back(committed_total(s.group, s.topic, partitions));
    ASSERT_LT(at_kill.back().ok, n) << "everything was delivered before crash " << crash;
    std::cout << "crash " << crash << " at ok=" << at_kill.back().ok << " (source committed "
              << committed_at_kill.back() << "), receiver " << at_kill.back().raw << std::endl;

    const auto restarted = steady::now();
    courier = start_courier(config, dir, "courier-" + std::to_string(crash));
    // The one deadline the scenario is about: the restarted instance delivers within 10 s.
    const auto ok_before = at_kill.back().ok;
    const bool delivering =
        wait_until([&] { return w.ok() > ok_before || !courier->running(); }, 10s) &&
        w.ok() > ok_before;
    restart_to_delivery_ms.push_back(ms_since(restarted));
    EXPECT_TRUE(delivering) << "restart " << crash
                            << " delivered nothing new within 10 s: " << w.stats().raw << "\n"
                            << tail(courier->log());
    ASSERT_TRUE(courier->running()) << tail(courier->log());
    ok_at_start = w.ok();
  }

  // Settled: every record delivered or dead-lettered, and the source committed to its end.
  std::vector<std::string> dead;
  const bool settled = wait_until(
      [&] {
        const auto ok = w.stats().ok;
        dead = dlq_keys(dlq_topic, ok < n ? n - ok : 0, 2s);
        return ok + dead.size() >= n || !courier->running();
      },
      120s);
  ASSERT_TRUE(settled && courier->running()) << w.stats().raw << "\n" << tail(courier->log());
  EXPECT_TRUE(committed_reaches(s.group, s.topic, partitions, static_cast<std::int64_t>(n)));
  // (a') The last instance's accounting, partition by partition from its /state, once nothing
  // is in flight: consumed = delivered + retried + dead_lettered + released, and its route
  // totals agree with the sum of its partitions.
  const auto admin = admin_port_in(courier->log());
  ASSERT_GT(admin, 0) << tail(courier->log());
  nlohmann::json route;
  EXPECT_TRUE(wait_until(
      [&] {
        const auto body = http_get(admin, "/state", 2s);
        route = body ? nlohmann::json::parse(*body).at("routes").at(0) : nlohmann::json{};
        return body && route.at("in_flight") == 0 && route.at("partitions").size() > 0 &&
               std::all_of(route.at("partitions").begin(), route.at("partitions").end(),
                           [](const nlohmann::json& p) { return p.at("in_flight") == 0; });
      },
      10s))
      << route;
  std::uint64_t delivered_by_partitions = 0;
  std::uint64_t consumed_by_partitions = 0;
  for (const auto& p : route.at("partitions")) {
    const auto& a = p.at("accounting");
    const auto count = [&a](const char* k) { return a.at(k).get<std::uint64_t>(); };
    EXPECT_EQ(count("consumed"), count("delivered") + count("retried") + count("dead_lettered") +
                                     count("released") + count("already_done") +
                                     p.at("in_flight").get<std::uint64_t>())
        << p;
    delivered_by_partitions += count("delivered");
    consumed_by_partitions += count("consumed");
  }
  EXPECT_EQ(delivered_by_partitions, route.at("counters").at("delivered").get<std::uint64_t>())
      << route;
  EXPECT_EQ(consumed_by_partitions, route.at("counters").at("consumed").get<std::uint64_t>())
      << route;
  EXPECT_GT(consumed_by_partitions, 0U) << route;

  const auto code = terminate(*courier);
  ASSERT_TRUE(code.has_value()) << "courier did not stop on SIGTERM\n" << tail(courier->log());
  EXPECT_EQ(*code, 0) << tail(courier->log());
  const auto end = w.settled_stats();

  // How often the head-of-line bound moved a record on, and records went to a tier at all.
  std::size_t head_of_line_moves = 0;
  std::size_t moved_to_tier = 0;
  for (int run = 0; run <= crashes; ++run) {
    std::ifstream in{dir / ("courier-" + std::to_string(run) + ".log")};
    const std::string log{std::istreambuf_iterator<char>{in}, {}};
    head_of_line_moves += count_of(log, "head of line moved to a retry tier");
    moved_to_tier += count_of(log, "record moved to a retry tier");
  }
  std::cout << head_of_line_moves << " records moved on by the head-of-line bound, "
            << moved_to_tier << " moved to a retry tier in all" << std::endl;
  EXPECT_GT(moved_to_tier, 0U) << "the retry tiers played no part";

  // (b) Duplicates per crash: those the receiver counted from one kill to the next (the last
  // crash's up to the end). None before the first crash: without one nothing arrives twice.
  EXPECT_EQ(at_kill.front().duplicates, 0U) << at_kill.front().raw;
  for (int crash = 0; crash < crashes; ++crash) {
    const auto until = crash + 1 < crashes ? at_kill[crash + 1].duplicates : end.duplicates;
    const auto duplicates = until - at_kill[crash].duplicates;
    std::cout << "crash " << crash + 1 << ": " << duplicates << " duplicates (bound " << bound
              << "), restart to first new delivery " << restart_to_delivery_ms[crash] << " ms"
              << std::endl;
    EXPECT_LE(duplicates, bound) << "crash " << crash + 1 << " re-delivered beyond the "
                                 << "head-of-line bound";
  }

  // (c) Accounting: no key twice in the DLQ, none both delivered and dead-lettered, every
  // seeded record one or the other, signed right; the source committed to N.
  dead = dlq_keys(dlq_topic, n - std::min(n, end.ok), 10s);
  const std::set<std::string> dead_once{dead.begin(), dead.end()};
  EXPECT_EQ(dead_once.size(), dead.size()) << "a record is in the DLQ twice";
  EXPECT_EQ(end.ok + dead.size(), n) << end.raw;
  std::cout << "end: receiver " << end.raw << ", " << dead.size() << " dead-lettered" << std::endl;
  EXPECT_EQ(offer_dlq_keys_to_receiver(w, {dead_once.begin(), dead_once.end()}), 0U)
      << "dead-lettered records the receiver had acknowledged";
  expect_accounting(w, n);
  EXPECT_EQ(committed_total(s.group, s.topic, partitions), static_cast<std::int64_t>(n));
}

// 2. SIGTERM during a rebalance: the first instance is told to stop right after the second
// one started (before the second logs any assignment). Its drain, held up by a receiver that
// has turned slow, spans the rebalance the second one's join starts: the first gives its
// partitions up, is assigned some again while draining, and leaves the group at once. It exits
// 0 well before its drain deadline plus a session timeout, the second ends up holding every
// partition (long before that drain deadline, and before the first's slow answers are in) and
// delivers everything that is left; nothing is lost, doubled beyond the records in flight, or
// left uncommitted.
TEST(EndToEndChaos, SigtermDuringARebalanceExitsPromptlyAndLeavesNoPartitionUnserved) {
  constexpr std::uint64_t n = 1000;
  constexpr int partitions = 4;
  constexpr int max_in_flight = 64;
  constexpr int latency_ms = 50;
  // While the second instance joins, the receiver answers after this long: the first one's
  // drain waits that long for its last answer, far longer than it takes to hear of the
  // rebalance (its next heartbeat, every 500 ms), go through it and leave.
  constexpr int slow_latency_ms = 8000;
  // courier's drain deadline (topology::pipeline_options::drain_timeout; not configurable).
  constexpr auto drain_timeout = 10s;
  // Well below drain_timeout + session.timeout.ms (6 s, tests/support/kafka_group.hpp).
  constexpr auto exit_bound = drain_timeout + 3s;
  // An instance assigned partitions while draining leaves the group at once instead of sitting
  // on them until its drain ends: the second holds everything before the first's slow answers
  // could have ended its drain. The second's own revoke of its first share may wait
  // kafka.revoke_drain_timeout (2 s) for the slow answers it has in flight, and under
  // cooperative-sticky the first's LeaveGroup may wait behind its tiers member's SyncGroup.
  constexpr auto takeover_bound = std::chrono::milliseconds{slow_latency_ms};
  const temp_dir scratch{"e2e-chaos-rebalance", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  webhook w{dir, latency_ms};
  const courier_settings s{unique_name("chaos-rebalance-group"), unique_name("chaos-rebalance"),
                           w.url(), max_in_flight, 100};
  create_topic(s.topic, partitions);
  seed(s.topic, 0, n);
  // The slow answers must not time out (e2e_config's 2 s).
  const auto config = prepare_with(s, {{"http", {{"timeout", "20s"}}}}, dir);
  auto set_latency = [&](int ms) {
    const auto chaos = nlohmann::json{{"latency_ms", ms}}.dump();
    ASSERT_EQ(http_post(port_of(w), "/chaos", chaos, {}, 2s), 200);
  };
  std::set<std::string> every_partition;
  for (const auto& topic :
       {s.topic, tier_topic(s.topic, s.retry_tiers[0]), tier_topic(s.topic, s.retry_tiers[1])}) {
    for (int p = 0; p < partitions; ++p) {
      every_partition.insert(topic + "[" + std::to_string(p) + "]");
    }
  }

  auto a = start_courier(config, dir, "courier-a");
  ASSERT_TRUE(wait_delivered(w, 100, 60s, {a.get()})) << w.stats().raw << "\n" << tail(a->log());
  // The tiers' member may join the group a round after the source's (its own rebalance).
  ASSERT_TRUE(wait_until([&] { return held_partitions(a->log()) == every_partition; }, 60s))
      << tail(a->log());

  // Slow from now on, and every record a has in flight is one of the slow ones (the receiver
  // counts a record when it decides to accept it, before the latency).
  const auto ok_at_slow = w.ok();
  set_latency(slow_latency_ms);
  ASSERT_TRUE(wait_delivered(w, ok_at_slow + max_in_flight, 10s, {a.get()})) << w.stats().raw;
  auto b = start_courier(config, dir, "courier-b");
  // b is up: its consumer subscribed and joins the group now. Checked every 2 ms.
  const bool b_started = wait_until(
      [&] {
        return b->log().find(R"("event":"courier running")") != std::string::npos || !b->running();
      },
      30s, [] { std::this_thread::sleep_for(std::chrono::milliseconds{2}); });
  ASSERT_TRUE(b_started && b->running()) << tail(b->log());
  const bool b_assigned_before = b->log().find(assigned_event) != std::string::npos;
  const bool a_revoked_before = count_of(a->log(), revoked_event) > 0;
  const auto ok_at_term = w.ok();
  const auto sigterm_at = steady::now();
  a->signal(SIGTERM);
  ASSERT_FALSE(b_assigned_before) << "the second instance had its assignment before the "
                                     "SIGTERM: not during the rebalance\n"
                                  << tail(b->log());
  ASSERT_LT(ok_at_term, n) << "everything was delivered before the SIGTERM";

  // b ends up holding every partition, the source's and the tiers', well before a's drain
  // deadline; a exits within exit_bound. Both watched together, each timed on its own.
  std::set<std::string> held_by_b;
  std::optional<std::int64_t> takeover_ms;
  std::optional<std::int64_t> a_exit_ms;
  wait_until(
      [&] {
        if (!takeover_ms && (held_by_b = held_partitions(b->log())) == every_partition) {
          takeover_ms = ms_since(sigterm_at);
        }
        if (!a_exit_ms && !a->running()) {
          a_exit_ms = ms_since(sigterm_at);
        }
        return (takeover_ms && a_exit_ms) || !b->running();
      },
      exit_bound);
  const auto log_a = a->log();
  EXPECT_TRUE(takeover_ms && *takeover_ms <= takeover_bound.count())
      << "the second instance held " << join(held_by_b) << " "
      << (takeover_ms ? *takeover_ms : ms_since(sigterm_at)) << " ms after the SIGTERM\n"
      << tail(b->log()) << "\n"
      << lines_of(log_a, rebalance_events);
  const auto code_a = a->wait_exit(0ms);
  ASSERT_TRUE(code_a.has_value()) << "the first instance did not exit within " << exit_bound.count()
                                  << " s of SIGTERM\n"
                                  << tail(log_a);
  EXPECT_EQ(*code_a, 0) << tail(log_a);
  EXPECT_NE(log_a.find(R"("event":"consumer closed")"), std::string::npos) << tail(log_a);
  // The rebalance reached a while it drained, and a left at once: when the revoke left it
  // nothing to finish, or else as soon as it was assigned again.
  EXPECT_FALSE(a_revoked_before) << tail(log_a);
  const auto drain_at = log_a.find(R"("event":"draining")");
  ASSERT_NE(drain_at, std::string::npos) << tail(log_a);
  const bool revoked_while_draining =
      log_a.find(R"("event":"partitions revoked")", drain_at) != std::string::npos;
  const bool assigned_while_draining =
      log_a.find("assigned while draining: leaving the group at once") != std::string::npos;
  EXPECT_TRUE(revoked_while_draining || assigned_while_draining)
      << "the first instance did not go through the rebalance while draining\n"
      << lines_of(log_a, rebalance_events);
  std::cout << "first instance exited " << *code_a << " " << a_exit_ms.value_or(-1)
            << " ms after SIGTERM; the second held all " << every_partition.size()
            << " partitions after " << takeover_ms.value_or(-1) << " ms\nfirst instance:\n"
            << lines_of(log_a, rebalance_events) << "second instance:\n"
            << lines_of(b->log(), rebalance_events);

  set_latency(latency_ms);
  ASSERT_TRUE(wait_delivered(w, n, 90s, {b.get()})) << w.stats().raw << "\n" << tail(b->log());
  EXPECT_TRUE(committed_reaches(s.group, s.topic, partitions, static_cast<std::int64_t>(n)));
  const auto code_b = terminate(*b);
  ASSERT_TRUE(code_b.has_value()) << tail(b->log());
  EXPECT_EQ(*code_b, 0) << tail(b->log());
  EXPECT_EQ(held_partitions(b->log()), std::set<std::string>{})
      << "the second instance gave every partition up when it stopped";

  // Accounting: all delivered, nothing dead-lettered (the receiver never failed), so
  // delivered + DLQ == N and the two are disjoint; every partition committed to its end (the
  // committed offsets sum to N, none is above its partition's end).
  const auto end = w.settled_stats();
  expect_accounting(w, n);
  const auto dlq = read_to_end(default_dlq_topic(s.topic), partitions, "read_uncommitted", 30s);
  EXPECT_EQ(dlq.size(), 0U);
  EXPECT_EQ(committed_total(s.group, s.topic, partitions), static_cast<std::int64_t>(n));
  // What arrives twice is what an instance had in flight when it gave a partition up: a's at
  // the rebalance b's join began, b's at the one a's leaving caused; max_in_flight each.
  std::cout << "duplicates: " << end.duplicates << " (bound " << 2 * max_in_flight << ")"
            << std::endl;
  EXPECT_LE(end.duplicates, 2U * max_in_flight) << end.raw;
}

}  // namespace
}  // namespace courier::e2e
