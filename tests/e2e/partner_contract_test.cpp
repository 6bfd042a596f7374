// The partner contract on the real broker (tools/kafka-local) against Debian's nginx, which
// timestamps every request in its access log: routes[].rate_limit (one instance, and two sharing
// the route's partitions), routes[].retry_budget under 60% 503s, and routes[].headers and
// forward_record_headers on every attempt (issue 31).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/retry/retry_tiers.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "tests/e2e/nginx_receiver.hpp"
#include "tests/e2e/partner_contract_support.hpp"
#include "tests/support/partition_names.hpp"

namespace courier::e2e {
namespace {

constexpr int partitions = 8;
constexpr double rate = 200;  // requests a second, the partner's published quota
constexpr double burst = 20;

class EndToEndPartnerContract : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(nginx_binary)) {
      GTEST_SKIP() << "nginx is not installed (make deps)";
    }
  }
};

// How many partitions of `topic` an instance holds at the end of its log ("partitions
// assigned" adds, "partitions revoked" removes; the log lists them compacted, "t[0-3]").
std::set<int> held_partitions(const std::string& log, const std::string& topic) {
  std::set<int> held;
  std::istringstream in{log};
  std::string line;
  while (std::getline(in, line)) {
    const auto doc = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!doc.is_object() || !doc.contains("partitions")) {
      continue;
    }
    const auto event = doc.value("event", "");
    for (const auto& entry : doc.at("partitions")) {
      for (const auto& p : testing::expand_partition_entry(entry.get<std::string>())) {
        if (p.rfind(topic + "[", 0) != 0) {
          continue;
        }
        const int id = std::stoi(p.substr(topic.size() + 1));
        if (event == "partitions assigned") {
          held.insert(id);
        } else if (event == "partitions revoked") {
          held.erase(id);
        }
      }
    }
  }
  return held;
}

// The partition of an Idempotency-Key "<topic>:<partition>:<offset>".
int partition_of(const std::string& key) {
  const auto last = key.rfind(':');
  const auto before = key.rfind(':', last - 1);
  return std::stoi(key.substr(before + 1, last - before - 1));
}

// When each record was first tried (its first arrival at nginx).
std::map<std::string, std::int64_t> first_arrivals(const std::vector<arrival>& log) {
  std::map<std::string, std::int64_t> first;
  for (const auto& a : log) {
    const auto [it, fresh] = first.emplace(a.key, a.ms);
    if (!fresh) {
      it->second = std::min(it->second, a.ms);
    }
  }
  return first;
}

// Requests a second from the arrival at `from` to the one at `to` (both in the sorted times).
double rate_between(const std::vector<std::int64_t>& sorted, std::int64_t from, std::int64_t to) {
  const auto n = count_in(sorted, from, to + 1);
  return to > from ? static_cast<double>(n - 1) * 1000.0 / static_cast<double>(to - from) : 0;
}

// courier's attempts counter agrees with nginx's log once both settled (what courier sent is
// what nginx answered: no request lost or invented on the way).
void expect_attempts_match(const child_process& courier, nginx_receiver& nginx) {
  double attempts = 0;
  const bool same = wait_until(
      [&] {
        attempts = route_metric(courier, "courier_delivery_attempts_total");
        return attempts == static_cast<double>(nginx.arrivals().size());
      },
      5s);
  EXPECT_TRUE(same) << attempts << " attempts counted, " << nginx.arrivals().size()
                    << " requests at nginx";
}

// 1 and 4. One instance, a route limited to 200/s (burst 20) over 8 partitions, 5,000 records
// seeded, nginx answering 20% 503: the requests at nginx, first attempts and retries alike,
// come at 200/s +- 5% from the first after the burst to the last first attempt, no 1 s window
// holds more than the quota's second plus its burst, every record is delivered or in the DLQ
// exactly once, and every request carries the static X-Api-Key (from a file) and its record's
// traceparent header unchanged, the retries from a retry tier included.
TEST_F(EndToEndPartnerContract,
       RateLimitHolds200PerSecondOver5000RecordsAndEveryAttemptCarriesHeaders) {
  constexpr std::size_t n = 5000;
  constexpr int max_attempts = 4;
  const temp_dir scratch{"e2e-rate-limit", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  nginx_receiver nginx{dir, /*percent_503=*/20};
  courier_settings s{unique_name("rate-limit-group"), unique_name("rate-limit"), nginx.url(), 64,
                     100};
  s.max_attempts = max_attempts;  // a record that fails 4 times moves to the 1 s tier
  create_topic(s.topic, partitions);
  const auto seeded = seed_traced(s.topic, n);
  const std::string api_key = "partner-key-" + std::to_string(getpid());
  const auto key_file = scratch.write("partner-api-key", api_key + "\n");
  const auto config =
      prepare_with(s,
                   {{"rate_limit", {{"requests_per_second", rate}, {"burst", burst}}},
                    {"headers", {{"X-Api-Key", {{"file", key_file.string()}}}}},
                    {"allow_insecure_http", true}},  // nginx listens on http://
                   dir);
  const auto dlq = default_dlq_topic(s.topic);
  auto courier = start_courier(config, dir, "courier");

  // 6,250 requests expected (5,000 / 0.8) at 200/s: about 31 s, and the tiers' tail.
  ASSERT_TRUE(wait_all_done(nginx, n, dlq, partitions, 120s, {courier.get()}))
      << delivered_keys(nginx.arrivals()).size() << " delivered\n"
      << tail(courier->log());
  EXPECT_TRUE(committed_reaches(s.group, s.topic, partitions, static_cast<std::int64_t>(n)));
  EXPECT_EQ(route_metric(*courier, "courier_rate_limit_requests_per_second"), rate);
  EXPECT_GT(route_metric(*courier, "courier_rate_limited_total"), 0);
  EXPECT_GT(route_metric(*courier, "courier_rate_limited_seconds_total"), 0);
  expect_attempts_match(*courier, nginx);
  const auto code = terminate(*courier);
  ASSERT_TRUE(code.has_value()) << tail(courier->log());
  EXPECT_EQ(*code, 0) << tail(courier->log());

  const auto& log = nginx.arrivals();
  // One instance, never restarted and never rebalanced: nothing is delivered twice.
  expect_each_record_once(log, seeded, dlq_keys(dlq, partitions), 0);

  // The rate: every request counts (the 503s and the retries they cause take tokens too). The
  // bucket is saturated while records still wait for their first attempt; after the last
  // first attempt only the retries of the last few records are left, far below the quota.
  const auto t = sorted_times(log);
  std::int64_t last_first = 0;
  for (const auto& [key, at] : first_arrivals(log)) {
    last_first = std::max(last_first, at);
  }
  const auto after_burst = t.at(static_cast<std::size_t>(burst));
  const double measured = rate_between(t, after_burst, last_first);
  std::size_t answered_503 = 0;
  for (const auto& a : log) {
    answered_503 += a.status == 503 ? 1 : 0;
  }
  std::cout << log.size() << " requests (" << answered_503 << " answered 503) for " << n
            << " records; " << measured << " requests/s over the " << (last_first - after_burst)
            << " ms from the first request after the burst to the last first attempt" << std::endl;
  EXPECT_NEAR(measured, rate, rate * 0.05);
  EXPECT_GT(answered_503, log.size() / 10) << "nginx answered 503 to about a fifth";

  // No second at nginx holds more than the quota's second and its burst. Slack: nginx logs a
  // request at the end of its answer, after courier's io thread wrote it; a window of 1 s at
  // nginx can therefore hold the tokens of a little more than 1 s of courier's clock. 50 ms of
  // that is 10 requests at 200/s.
  const auto busiest = fullest(t, 1000, t.front());
  const auto first_second = count_in(t, t.front(), t.front() + 1000);
  std::cout << "fullest 1 s window: " << busiest.count << " requests, starting "
            << (busiest.at - t.front())
            << " ms after the first request; the first second: " << first_second << std::endl;
  EXPECT_LE(static_cast<double>(busiest.count), rate + burst + 10);

  // 4. Headers on every attempt: the static X-Api-Key, and the record's own traceparent.
  std::size_t wrong_key = 0;
  std::size_t wrong_trace = 0;
  std::string example;
  std::map<std::string, int> attempts_of;
  for (const auto& a : log) {
    ++attempts_of[a.key];
    wrong_key += a.api_key == api_key ? 0 : 1;
    const auto it = seeded.find(a.key);
    if (it == seeded.end() || it->second != a.traceparent) {
      ++wrong_trace;
      if (example.empty()) {
        example = a.key + " carried traceparent '" + a.traceparent + "', seeded '" +
                  (it == seeded.end() ? std::string{"(no such record)"} : it->second) + "'";
      }
    }
  }
  EXPECT_EQ(wrong_key, 0U) << "requests without the route's X-Api-Key";
  EXPECT_EQ(wrong_trace, 0U) << example;
  // The header's value is a secret: no line of courier's log carries it.
  EXPECT_EQ(courier->log().find(api_key), std::string::npos) << "the X-Api-Key value was logged";
  // Some records went through a retry tier (more attempts than one sequence allows), so the
  // header was forwarded from the tier's copy of the record too.
  const auto from_a_tier = std::count_if(attempts_of.begin(), attempts_of.end(),
                                         [](const auto& k) { return k.second > max_attempts; });
  std::cout << from_a_tier << " records were retried from a tier" << std::endl;
  EXPECT_GT(from_a_tier, 0);
}

// 2. Two instances of the same route and group, sharing its 8 partitions: once both are
// assigned, each takes 4/8 of the quota (100/s, burst 10), so together they stay under 200/s.
// During the rebalance the old owner keeps its previous share (the whole quota) until it is
// told its new assignment: the eager protocol revokes every partition first, and a revocation
// leaves the share as it was (no assignment tells nothing), so the bound holds from the moment
// both hold their partitions, which the test waits for before it measures.
TEST_F(EndToEndPartnerContract,
       TwoInstancesSharingTheRoutesPartitionsStayUnder200PerSecondTogether) {
  constexpr std::size_t n = 4000;
  constexpr int max_in_flight = 64;
  const temp_dir scratch{"e2e-rate-limit-two", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  nginx_receiver nginx{dir, /*percent_503=*/20};
  const courier_settings s{unique_name("rate-two-group"), unique_name("rate-two"), nginx.url(),
                           max_in_flight, 100};
  create_topic(s.topic, partitions);
  const auto seeded = seed_traced(s.topic, n);
  const auto config =
      prepare_with(s, {{"rate_limit", {{"requests_per_second", rate}, {"burst", burst}}}}, dir);
  const auto dlq = default_dlq_topic(s.topic);

  // a alone first, at the whole quota; b joins while a delivers.
  auto a = start_courier(config, dir, "courier-a");
  ASSERT_TRUE(wait_until(
      [&] {
        return (held_partitions(a->log(), s.topic).size() == partitions &&
                nginx.arrivals().size() >= 400) ||
               !a->running();
      },
      60s))
      << tail(a->log());
  ASSERT_TRUE(a->running()) << tail(a->log());
  const auto b_started_at = wall_ms();
  auto b = start_courier(config, dir, "courier-b");
  std::set<int> held_a;
  std::set<int> held_b;
  const bool both_assigned = wait_until(
      [&] {
        held_a = held_partitions(a->log(), s.topic);
        held_b = held_partitions(b->log(), s.topic);
        return (held_a.size() == partitions / 2 && held_b.size() == partitions / 2) ||
               !a->running() || !b->running();
      },
      60s, [] { std::this_thread::sleep_for(std::chrono::milliseconds{5}); });
  const auto both_at = wall_ms();
  ASSERT_TRUE(both_assigned && a->running() && b->running())
      << held_a.size() << " and " << held_b.size() << " partitions held\n"
      << tail(a->log()) << "\n"
      << tail(b->log());
  ASSERT_LT(delivered_keys(nginx.arrivals()).size(), n / 2) << "too little left for the two";

  ASSERT_TRUE(wait_all_done(nginx, n, dlq, partitions, 120s, {a.get(), b.get()}))
      << delivered_keys(nginx.arrivals()).size() << " delivered\n"
      << tail(a->log()) << "\n"
      << tail(b->log());
  EXPECT_TRUE(committed_reaches(s.group, s.topic, partitions, static_cast<std::int64_t>(n)));
  EXPECT_EQ(route_metric(*a, "courier_rate_limit_requests_per_second"), rate / 2);
  EXPECT_EQ(route_metric(*b, "courier_rate_limit_requests_per_second"), rate / 2);
  for (auto* c : {a.get(), b.get()}) {
    const auto code = terminate(*c);
    ASSERT_TRUE(code.has_value()) << tail(c->log());
    EXPECT_EQ(*code, 0) << tail(c->log());
  }

  const auto& log = nginx.arrivals();
  expect_each_record_once(log, seeded, dlq_keys(dlq, partitions), n);
  // What arrives twice is what a had answered but not committed when the rebalance took its
  // partitions (the eager protocol revokes all of them, the ones a gets back too, and each
  // restarts from its committed offset), and what it still had in flight then. A partition's
  // commit point stays at its lowest record not done, and a record retrying holds it for up to
  // its 4 attempts, each behind at most the 64 records in flight waiting for a token (0.32 s)
  // plus its backoff (<= 0.5 s): about 3.3 s. So every record answered 2xx twice was answered
  // first from 5 s before b started to 3.3 s after both held their partitions, and again after
  // b started.
  std::map<std::string, std::vector<std::int64_t>> ok_times;
  for (const auto& request : log) {
    if (request.status >= 200 && request.status < 300) {
      ok_times[request.key].push_back(request.ms);
    }
  }
  std::size_t duplicates = 0;
  std::size_t unexplained = 0;
  for (auto& [key, times] : ok_times) {
    if (times.size() < 2) {
      continue;
    }
    ++duplicates;
    std::sort(times.begin(), times.end());
    const bool handed_over =
        times[0] >= b_started_at - 5000 && times[0] <= both_at + 3300 && times[1] >= b_started_at;
    unexplained += handed_over && times.size() == 2 ? 0 : 1;
  }
  std::cout << duplicates << " records answered 2xx twice, all around the rebalance: "
            << (unexplained == 0 ? "yes" : "no") << std::endl;
  EXPECT_EQ(unexplained, 0U) << "records delivered twice outside the rebalance";

  // Every 2 s window from the moment both held their partitions: the two buckets give at most
  // 2 s x 200/s plus both bursts (10 each); 5% on the rate for nginx's clock against courier's.
  const auto t = sorted_times(log);
  const auto busiest = fullest(t, 2000, both_at);
  const double bound = 2 * rate * 1.05 + burst;
  std::cout << "fullest 2 s window after both were assigned: " << busiest.count
            << " requests, starting " << (busiest.at - both_at) << " ms after (bound " << bound
            << ")" << std::endl;
  EXPECT_LE(static_cast<double>(busiest.count), bound);

  // And the two use their shares: from a second after both were assigned until the first of
  // them ran out of first attempts, together they come to the quota, 200/s +- 5%.
  std::map<bool, std::int64_t> last_first;  // by whether b holds the record's partition
  for (const auto& [key, at] : first_arrivals(log)) {
    const bool of_b = held_b.count(partition_of(key)) > 0;
    last_first[of_b] = std::max(last_first[of_b], at);
  }
  const auto from = both_at + 1000;
  const auto to = std::min(last_first[false], last_first[true]);
  ASSERT_GT(to - from, 5000) << "both delivered together for less than 5 s";
  const double together = rate_between(t, *std::lower_bound(t.begin(), t.end(), from), to);
  std::cout << "together " << together << " requests/s over " << (to - from)
            << " ms; alone before b joined: "
            << rate_between(t, t.at(static_cast<std::size_t>(burst)),
                            *std::prev(std::lower_bound(t.begin(), t.end(), b_started_at)))
            << " requests/s" << std::endl;
  EXPECT_NEAR(together, rate, rate * 0.05);
}

// 3. The retry budget (its defaults: 0.2 of the first attempts over 10 s, plus 10 a second)
// against nginx answering 60% 503, no rate limit. A request whose Idempotency-Key nginx saw
// before is a retry; the first one is a first attempt.
//
// The arithmetic: at 40% 2xx a record takes 2.5 attempts on average, 1.5 of them retries, so
// N records need about 1.5 N retries; the budget grants 0.2 N in the window of the first
// attempts (which all go out at once) and then 10 a second. 400 records need about 600, of
// which 180 in the first window and the rest at 10/s: about 52 s. (3,000 records would need
// 4,500 retries, some 7 minutes at 10/s: the budget binds hard at 60% 503s, as it should.)
// No DLQ without the budget either: a record reaches it only after max_attempts 503s in a row
// in the last tier, 0.6^30 = 2e-7 a visit. The breaker counts a retry refused by the budget as a
// failed delivery (attempt_policy::on_retriable), as it does any record moved to a tier; at 60%
// 503s, 5 of those in a row (its default trip_after) come soon and would stall the route for
// its open_timeout: it is set out of the way, the budget is what this test is about.
TEST_F(EndToEndPartnerContract,
       RetryBudgetKeepsRetriesWithinItsShareUnder60Percent503sAndNoneReachesTheDlq) {
  constexpr std::size_t n = 400;
  constexpr double ratio = 0.2;
  constexpr std::int64_t window_ms = 10000;
  constexpr double floor_per_window = 10 * 10;  // min_per_second x window seconds
  const temp_dir scratch{"e2e-retry-budget", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  nginx_receiver nginx{dir, /*percent_503=*/60};
  courier_settings s{unique_name("retry-budget-group"), unique_name("retry-budget"), nginx.url(),
                     64, 100};
  s.max_attempts = 30;
  create_topic(s.topic, partitions);
  const auto seeded = seed_traced(s.topic, n);
  const auto config =
      prepare_with(s,
                   {{"retry_budget", {{"ratio", ratio}, {"window", "10s"}, {"min_per_second", 10}}},
                    {"breaker", {{"trip_after", 1000000}}}},
                   dir);
  const auto dlq = default_dlq_topic(s.topic);
  auto courier = start_courier(config, dir, "courier");

  ASSERT_TRUE(wait_all_done(nginx, n, dlq, partitions, 170s, {courier.get()}))
      << delivered_keys(nginx.arrivals()).size() << " delivered\n"
      << tail(courier->log());
  EXPECT_TRUE(committed_reaches(s.group, s.topic, partitions, static_cast<std::int64_t>(n)));
  const auto refused = route_metric(*courier, "courier_retry_budget_refused_total");
  EXPECT_GT(refused, 0) << "the budget never bound";
  expect_attempts_match(*courier, nginx);
  const auto code = terminate(*courier);
  ASSERT_TRUE(code.has_value()) << tail(courier->log());
  EXPECT_EQ(*code, 0) << tail(courier->log());

  auto log = nginx.arrivals();
  std::stable_sort(log.begin(), log.end(),
                   [](const arrival& x, const arrival& y) { return x.ms < y.ms; });
  EXPECT_EQ(expect_each_record_once(log, seeded, dlq_keys(dlq, partitions), 0), 0U)
      << "records in the DLQ";

  std::vector<std::int64_t> firsts;
  std::vector<std::int64_t> retries;
  std::set<std::string> seen;
  for (const auto& a : log) {
    (seen.insert(a.key).second ? firsts : retries).push_back(a.ms);
  }
  std::cout << firsts.size() << " first attempts, " << retries.size() << " retries, " << refused
            << " retries refused by the budget, over " << (log.back().ms - log.front().ms) / 1000.0
            << " s" << std::endl;

  // courier lets a retry go when, at that moment, the retries of its window (the last 10 s, in
  // slices of 100 ms: 9.9 to 10 s of them) and this one stay within 0.2 x the window's first
  // attempts + 100. nginx logs a request once it answered it, after courier sent it; allowing
  // that up to 100 ms, the bound at nginx is, for every retry r: the retries nginx logged in
  // (r - 9.8 s, r] <= 0.2 x the first attempts it logged in (r - 10.1 s, r + 0.1 s] + 100. (Of
  // those retries, the one courier sent last went out at most 100 ms before r, so courier's
  // window then held all the others; and every first attempt of that window was logged within
  // those 10.2 s.)
  std::size_t over = 0;
  double worst = -1e9;
  std::string worst_at;
  for (const auto r : retries) {
    const auto before = count_in(retries, r - 9800 + 1, r + 1);
    const auto allowed = ratio * static_cast<double>(count_in(firsts, r - 10100 + 1, r + 100 + 1)) +
                         floor_per_window;
    const double excess = static_cast<double>(before) - allowed;
    if (excess > worst) {
      worst = excess;
      worst_at = std::to_string(before) + " retries against " + std::to_string(allowed) +
                 " allowed, " + std::to_string(r - log.front().ms) + " ms into the run";
    }
    over += excess > 0 ? 1 : 0;
  }
  std::cout << "tightest window ending at a retry: " << worst_at << std::endl;
  EXPECT_EQ(over, 0U) << "retries over the budget; the worst: " << worst_at;

  // The same in windows of 10 s stepping 1 s, for the record (not asserted: a window's retries
  // may have been granted by first attempts just before it, which it does not count).
  std::string stepped;
  for (auto end = log.front().ms + 1000; end <= log.back().ms + 1000; end += 1000) {
    const auto f = count_in(firsts, end - window_ms, end);
    const auto rt = count_in(retries, end - window_ms, end);
    stepped += " " + std::to_string(rt) + "/" +
               std::to_string(static_cast<int>(ratio * static_cast<double>(f) + floor_per_window));
  }
  std::cout << "retries/allowed in the 10 s windows ending each second:" << stepped << std::endl;
}

}  // namespace
}  // namespace courier::e2e
