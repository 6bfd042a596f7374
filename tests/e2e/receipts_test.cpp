// Receipts (routes[].receipts_topic, issue 34) on the suite's real broker against nginx
// (tests/e2e/nginx_receiver.hpp: 20% 503s, 2% 400s, every answer with an X-Request-Id), with a
// SIGKILL and a restart in the middle: the receipts topic holds one receipt per record nginx
// answered 2xx, keyed by its Idempotency-Key, naming its origin and nginx's request id for that
// answer; a key has a second receipt only where nginx answered it 2xx twice, and a record in
// the DLQ has none. All 2,000 records are delivered or in the DLQ, each once in Kafka.

#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/retry/receipt.hpp"
#include "core/retry/retry_tiers.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "tests/e2e/nginx_receiver.hpp"
#include "tests/e2e/partner_contract_support.hpp"

namespace courier::e2e {
namespace {

constexpr std::size_t records = 2000;
constexpr int partitions = 4;

std::string key_of(const record_position& p) {
  return p.topic + ":" + std::to_string(p.partition) + ":" + std::to_string(p.offset);
}

TEST(EndToEndReceipts, OneReceiptPerDeliveryThroughASigkill) {
  temp_dir scratch{"e2e-receipts", temp_dir::keep_if_failed};
  nginx_receiver nginx{scratch.path(), /*percent_503=*/20, /*latency_ms=*/0, std::nullopt,
                       /*percent_400=*/2};
  courier_settings s{unique_name("receipts-group"), unique_name("receipts"), nginx.url(),
                     /*max_in_flight=*/64, 100};
  create_topic(s.topic, partitions);
  const auto seeded = seed_traced(s.topic, records);
  const std::string receipts = s.topic + ".receipts";
  const auto config = prepare_with(
      s, {{"receipts_topic", receipts}, {"receipts", {{"response_headers", {"X-Request-Id"}}}}},
      scratch.path());
  const auto dlq = default_dlq_topic(s.topic);

  auto first = start_courier(config, scratch.path(), "courier-a");
  ASSERT_TRUE(wait_until(
      [&] { return delivered_keys(nginx.arrivals()).size() >= records / 4 || !first->running(); },
      120s))
      << tail(first->log());
  ASSERT_TRUE(first->running()) << tail(first->log());
  first->kill_now();
  auto second = start_courier(config, scratch.path(), "courier-b");
  ASSERT_TRUE(wait_all_done(nginx, records, dlq, partitions, 180s, {second.get()}))
      << tail(second->log());
  ASSERT_TRUE(committed_reaches(s.group, s.topic, partitions, static_cast<std::int64_t>(records)));

  const auto& log = nginx.arrivals();
  const auto dead = dlq_keys(dlq, partitions);
  EXPECT_GT(expect_each_record_once(log, seeded, dead, records / 2), 0U)
      << "2% 400s: some records end in the DLQ";

  // nginx's 2xx answers: per key, how many and with which request ids.
  std::map<std::string, int> answered;
  std::map<std::string, std::set<std::string>> request_ids;
  for (const auto& a : log) {
    if (a.status >= 200 && a.status < 300) {
      ++answered[a.key];
      request_ids[a.key].insert(a.request_id);
    }
  }
  std::map<std::string, int> receipted;
  std::size_t twice = 0;
  for (const auto& r : read_to_end(receipts, partitions, "read_uncommitted", 30s)) {
    ASSERT_TRUE(r.key) << "a receipt without a key";
    const auto& key = *r.key;
    const auto value = std::string{r.value.view()};
    receipt rc;
    ASSERT_NO_THROW(rc = decode_receipt(value)) << value;
    EXPECT_EQ(key_of(rc.origin), key) << "keyed by the Idempotency-Key of its origin";
    EXPECT_EQ(rc.route, "shipments");
    EXPECT_GE(rc.status, 200);
    EXPECT_LT(rc.status, 300);
    EXPECT_GE(rc.attempts, 1);
    EXPECT_GE(rc.delivered_ms, rc.first_attempt_ms);
    EXPECT_FALSE(rc.instance.empty());
    ASSERT_EQ(rc.response_headers.size(), 1U) << value;
    EXPECT_EQ(rc.response_headers[0].first, "X-Request-Id");
    if (request_ids[key].count(rc.response_headers[0].second) != 1U) {
      std::string lines;
      for (const auto& a : log) {
        if (a.key == key) {
          lines +=
              "\n  " + std::to_string(a.ms) + " " + std::to_string(a.status) + " " + a.request_id;
        }
      }
      ADD_FAILURE() << key << ": the request id of none of nginx's 2xx answers to it: " << value
                    << "; nginx:" << lines;
    }
    twice += ++receipted[key] == 2 ? 1 : 0;
  }
  // Every 2xx has its receipt, but for one answered in the moment before the SIGKILL, whose
  // record came again; nothing else has one.
  for (const auto& [key, times] : answered) {
    ASSERT_EQ(receipted.count(key), 1U) << "answered 2xx, no receipt: " << key;
    EXPECT_LE(receipted[key], times) << key << ": more receipts than 2xx answers";
  }
  for (const auto& [key, n] : receipted) {
    EXPECT_EQ(answered.count(key), 1U) << "a receipt of a record never answered 2xx: " << key;
  }
  for (const auto& key : dead) {
    EXPECT_EQ(receipted.count(key), 0U) << "a dead-lettered record has a receipt: " << key;
  }
  EXPECT_EQ(receipted.size(), answered.size());
  std::cout << receipted.size() << " records with a receipt, " << twice << " with two" << std::endl;
  expect_clean_stop(*second);
}

}  // namespace
}  // namespace courier::e2e
