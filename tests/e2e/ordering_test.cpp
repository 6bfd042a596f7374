// Key order through the retry tiers (issue 33), on the suite's real broker against nginx
// (tests/e2e/nginx_receiver.hpp): 2,000 shipments x 5 updates over 8 partitions, each update a
// record keyed by its shipment, the key also in a record header courier forwards (X-Shipment) so
// nginx logs it. 20% of the requests are answered 503 at random, and every tenth shipment is
// refused (503) for its first 8 s, so its first update travels through the tiers while its later
// ones wait. For every shipment, the first 2xx of its updates must come in offset order; the
// other shipments must keep flowing meanwhile; and all 10,000 records must be delivered or
// dead-lettered, each once in Kafka.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/kafka/producer.hpp"
#include "core/retry/retry_tiers.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "tests/e2e/nginx_receiver.hpp"
#include "tests/e2e/partition_log.hpp"
#include "tests/e2e/partner_contract_support.hpp"

namespace courier::e2e {
namespace {

constexpr std::size_t shipments = 2000;
constexpr std::size_t updates = 5;
constexpr int partitions = 8;
constexpr auto refusal_period = std::chrono::seconds{8};

std::string shipment_key(std::size_t i) { return "ship-" + std::to_string(i); }

// Every tenth shipment: refused by the partner for the first 8 s.
const refusal tenth_refused{"$http_x_shipment", "~0$"};

// The updates in the order they happened (update 0 of every shipment, then update 1, ...),
// keyed by shipment, the key also in an X-Shipment header. Returns each record's
// Idempotency-Key ("<topic>:<partition>:<offset>") with its shipment.
std::map<std::string, std::string> seed_updates(const std::string& topic) {
  std::map<std::string, std::string> shipment_of;
  kafka::producer p{kafka_environment::bootstrap()};
  for (std::size_t u = 0; u < updates; ++u) {
    for (std::size_t i = 0; i < shipments; ++i) {
      const auto key = shipment_key(i);
      const auto value = R"({"shipment":")" + key + R"(","update":)" + std::to_string(u) + "}";
      p.produce(topic, -1, key, value, {{"x-shipment", key}}, 0,
                [&shipment_of, &topic, key](rd_kafka_resp_err_t err, std::int32_t partition,
                                            std::int64_t offset) {
                  if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
                    shipment_of.emplace(
                        topic + ":" + std::to_string(partition) + ":" + std::to_string(offset),
                        key);
                  }
                });
    }
    // Each round acknowledged before the next: a shipment's updates are in its partition in
    // the order they happened.
    p.flush(std::chrono::seconds{30});
  }
  if (p.failed() != 0 || shipment_of.size() != shipments * updates) {
    throw std::runtime_error("seeding " + topic + ": " + std::to_string(p.failed()) +
                             " records failed");
  }
  return shipment_of;
}

std::int64_t offset_in(const std::string& idempotency_key) {
  return std::stoll(idempotency_key.substr(idempotency_key.rfind(':') + 1));
}

// For every shipment, the first 2xx of its records in offset order. Returns how many shipments
// were checked; an out-of-order one fails the test, naming it.
std::size_t expect_key_order(const std::vector<arrival>& log,
                             const std::map<std::string, std::string>& shipment_of) {
  // Per shipment: offset -> index of its first 2xx in the log (nginx's order of answering).
  std::map<std::string, std::map<std::int64_t, std::size_t>> first;
  for (std::size_t i = 0; i < log.size(); ++i) {
    const auto& a = log[i];
    if (a.status < 200 || a.status >= 300) {
      continue;
    }
    const auto it = shipment_of.find(a.key);
    if (it == shipment_of.end()) {
      ADD_FAILURE() << "delivered a record never seeded: " << a.key;
      continue;
    }
    EXPECT_EQ(a.shipment, it->second) << "X-Shipment of " << a.key;
    first[it->second].emplace(offset_in(a.key), i);
  }
  std::size_t out_of_order = 0;
  for (const auto& [shipment, by_offset] : first) {
    std::size_t previous = 0;
    bool first_one = true;
    for (const auto& [offset, index] : by_offset) {
      if (!first_one && index < previous) {
        if (++out_of_order <= 5) {
          ADD_FAILURE() << shipment << ": the record at offset " << offset
                        << " was answered 2xx before an earlier one of it";
        }
      }
      previous = index;
      first_one = false;
    }
  }
  EXPECT_EQ(out_of_order, 0U) << "shipments delivered out of order";
  return first.size();
}

struct ordering_scenario {
  explicit ordering_scenario(const std::string& name)
      : scratch{"e2e-ordering-" + name, temp_dir::keep_if_failed},
        nginx{scratch.path(), /*percent_503=*/20, /*latency_ms=*/0, tenth_refused},
        s{unique_name("ordering-" + name + "-group"), unique_name("ordering-" + name), nginx.url(),
          /*max_in_flight=*/64, 100} {
    // Tiers longer together than the refusal, so a refused shipment's first update is delivered
    // from a tier, not dead-lettered.
    s.retry_tiers = {std::chrono::seconds{5}, std::chrono::seconds{10}};
    create_topic(s.topic, partitions);
    shipment_of = seed_updates(s.topic);
    config = prepare_with(s, {{"ordering", "key"}, {"forward_record_headers", {"x-shipment"}}},
                          scratch.path());
    dlq = default_dlq_topic(s.topic);
  }

  const std::filesystem::path& dir() const { return scratch.path(); }

  // The refusal lasts 8 s from the partner's first request (start-up and the group's join are
  // not in it). Returns when that request came (Unix ms).
  std::int64_t first_request(child_process& c) {
    EXPECT_TRUE(wait_until([&] { return !nginx.arrivals().empty() || !c.running(); }, 60s))
        << tail(c.log());
    return wall_ms();
  }
  void lift_refusal(std::int64_t started_ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds{std::max<std::int64_t>(
        0, started_ms + std::chrono::milliseconds{refusal_period}.count() - wall_ms())});
    nginx.stop_refusing();
  }

  void expect_all_done_in_order(std::initializer_list<child_process*> running,
                                std::size_t max_duplicates) {
    const auto n = shipments * updates;
    ASSERT_TRUE(wait_all_done(nginx, n, dlq, partitions, 180s, running));
    ASSERT_TRUE(committed_reaches(s.group, s.topic, partitions, static_cast<std::int64_t>(n)));
    const auto& log = nginx.arrivals();
    EXPECT_EQ(expect_key_order(log, shipment_of), shipments);
    expect_each_record_once(log, shipment_of, dlq_keys(dlq, partitions), max_duplicates);
  }

  temp_dir scratch;
  nginx_receiver nginx;
  courier_settings s;
  std::map<std::string, std::string> shipment_of;
  std::filesystem::path config;
  std::string dlq;
};

// Deliveries of the shipments never refused while the refused ones waited.
std::size_t others_answered_between(const std::vector<arrival>& log, std::int64_t from_ms,
                                    std::int64_t until_ms) {
  std::size_t n = 0;
  for (const auto& a : log) {
    if (a.ms >= from_ms && a.ms < until_ms && a.status >= 200 && a.status < 300 &&
        a.shipment.back() != '0') {
      ++n;
    }
  }
  return n;
}

TEST(EndToEndOrdering, EveryShipmentsUpdatesArriveInOrderThroughTheTiersWhileOthersFlow) {
  ordering_scenario sc{"plain"};
  auto c = start_courier(sc.config, sc.dir(), "courier");
  const auto started_ms = sc.first_request(*c);
  sc.lift_refusal(started_ms);
  const auto lifted_ms = wall_ms();
  ASSERT_TRUE(c->running()) << tail(c->log());
  const auto others = others_answered_between(sc.nginx.arrivals(), started_ms, lifted_ms);
  std::cout << "while the refusal lasted (" << lifted_ms - started_ms << " ms): " << others
            << " updates of the other shipments delivered" << std::endl;
  // The other 1,800 shipments' 9,000 updates need no tier but for the random 503s: they keep
  // going through while the refused ones wait in the tiers with their later updates behind them.
  EXPECT_GE(others, 1000U) << "other shipments waited behind the refused ones";
  sc.expect_all_done_in_order({c.get()}, 0);
  expect_clean_stop(*c);
}

// Killed while refused shipments wait in the tiers: the new instance reads the tiers before it
// delivers a record, so their later updates still wait for them.
TEST(EndToEndOrdering, OrderHoldsThroughASigkillAndARestart) {
  ordering_scenario sc{"kill"};
  auto first = start_courier(sc.config, sc.dir(), "courier-a");
  const auto started_ms = sc.first_request(*first);
  // Some refused shipments' first updates are in the 5 s tier by now.
  ASSERT_TRUE(wait_until([&] { return wall_ms() >= started_ms + 3000; }, 10s));
  first->kill_now();
  auto second = start_courier(sc.config, sc.dir(), "courier-b");
  sc.lift_refusal(started_ms);
  ASSERT_TRUE(second->running()) << tail(second->log());
  // At least once: what the first had delivered after its last commit comes again.
  sc.expect_all_done_in_order({second.get()}, shipments * updates / 10);
  EXPECT_NE(second->log().find("retry tiers read for key order"), std::string::npos)
      << tail(second->log());
  expect_clean_stop(*second);
}

// A second instance joins while refused shipments wait: the group's range assignment moves each
// source partition with its tiers' partitions, and the new owner reads them before delivering.
TEST(EndToEndOrdering, OrderHoldsWhenASecondInstanceJoins) {
  ordering_scenario sc{"join"};
  auto a = start_courier(sc.config, sc.dir(), "courier-a");
  const auto started_ms = sc.first_request(*a);
  ASSERT_TRUE(wait_until([&] { return wall_ms() >= started_ms + 2000; }, 10s));
  auto b = start_courier(sc.config, sc.dir(), "courier-b");
  sc.lift_refusal(started_ms);
  ASSERT_TRUE(a->running()) << tail(a->log());
  ASSERT_TRUE(b->running()) << tail(b->log());
  sc.expect_all_done_in_order({a.get(), b.get()}, shipments * updates / 10);
  EXPECT_FALSE(held_partitions(b->log()).empty()) << "the second instance took no partition\n"
                                                  << tail(b->log());
  expect_clean_stop(*a);
  expect_clean_stop(*b);
}

}  // namespace
}  // namespace courier::e2e
