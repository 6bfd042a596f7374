// routes[].auto_redrive on the suite's real broker against nginx (tests/e2e/nginx_receiver.hpp).
// First 100 shipments while the partner is up: it answers 400 to every bad- one (a tenth) (they go
// to the DLQ as http_4xx) and 200 to the others. Then an outage longer than the retry tiers: nginx
// answers 503 to every request, and 400 shipments run out of their tiers into the DLQ until the
// breaker opens (and holds the rest). Then the partner recovers. Once the breaker has been Closed
// for auto_redrive.after, courier redrives the DLQ's 503s by itself: every good shipment is
// answered 2xx exactly once by its Idempotency-Key, the 400s stay in the DLQ though they failed
// within the event's window, and the ledger holds exactly the records moved.

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/kafka/producer.hpp"
#include "core/retry/retry_tiers.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "tests/e2e/nginx_receiver.hpp"
#include "tests/e2e/partner_contract_support.hpp"

namespace courier::e2e {
namespace {

constexpr std::size_t before = 100;  // every tenth one bad-
constexpr std::size_t during = 400;
// Fewer than answer_judge's run of 20 permanent answers that hold a route's records.
constexpr std::size_t bad = before / 10;
constexpr int partitions = 4;
const std::string admin_token = "e2e-admin-token";

// Shipments [from, from + count) keyed shp-<i> (bad-<i> every tenth one when `with_bad`), the key
// also in an X-Shipment header courier forwards. Adds each record's Idempotency-Key with its
// shipment to `shipment_of`.
void seed_shipments(const std::string& topic, std::size_t from, std::size_t count, bool with_bad,
                    std::map<std::string, std::string>& shipment_of) {
  kafka::producer p{kafka_environment::bootstrap()};
  for (std::size_t i = from; i < from + count; ++i) {
    const auto key = (with_bad && i % 10 == 0 ? "bad-" : "shp-") + std::to_string(i);
    p.produce(topic, -1, key, R"({"shipment":")" + key + "\"}", {{"x-shipment", key}}, 0,
              [&shipment_of, &topic, key](rd_kafka_resp_err_t err, std::int32_t partition,
                                          std::int64_t offset) {
                if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
                  shipment_of.emplace(
                      topic + ":" + std::to_string(partition) + ":" + std::to_string(offset), key);
                }
              });
  }
  p.flush(std::chrono::seconds{30});
  if (p.failed() != 0 || p.acked() != count) {
    throw std::runtime_error("seeding " + topic + " failed");
  }
}

// One DLQ record: where it is (redrive's ledger key), whose it is, and why.
struct dead_letter {
  std::string at;
  std::string key;  // Idempotency-Key
  std::string error_class;
};

std::vector<dead_letter> dlq_records(const std::string& dlq) {
  std::vector<dead_letter> out;
  for (const auto& r : read_to_end(dlq, partitions, "read_committed", 30s)) {
    out.push_back(
        {dlq + ":" + std::to_string(r.partition) + ":" + std::to_string(r.offset),
         std::string{find_header(r.headers, "courier.idempotency.key").value_or("(none)")},
         std::string{find_header(r.headers, "courier.error.class").value_or("(none)")}});
  }
  return out;
}

TEST(EndToEndAutoRedrive, AnOutageLongerThanTheTiersIsRedrivenOnceThePartnerRecovered) {
  temp_dir scratch{"e2e-auto-redrive", temp_dir::keep_if_failed};
  nginx_receiver nginx{scratch.path(),
                       /*percent_503=*/0,
                       /*latency_ms=*/0,  std::nullopt,
                       /*percent_400=*/0, refusal{"$http_x_shipment", "~^bad-"}};
  courier_settings s{unique_name("auto-redrive-group"), unique_name("auto-redrive"), nginx.url(),
                     /*max_in_flight=*/64, 100};
  s.max_attempts = 2;
  create_topic(s.topic, partitions);
  std::map<std::string, std::string> shipment_of;
  seed_shipments(s.topic, 0, before, /*with_bad=*/true, shipment_of);
  const auto config =
      prepare_with(s,
                   {{"forward_record_headers", {"x-shipment"}},
                    // Opens once about half of the records ran out of tiers: those are in the DLQ,
                    // the rest is held by the breaker.
                    {"breaker", {{"trip_after", 900}, {"open_timeout", "1s"}}},
                    {"auto_redrive", {{"after", "2s"}, {"lookback", "1m"}, {"rate", 1000}}}},
                   scratch.path());
  {
    auto doc = nlohmann::json::parse(std::ifstream{config});
    doc["admin"]["token"] = admin_token;
    std::ofstream{config} << doc.dump(2);
  }
  const auto dlq = default_dlq_topic(s.topic);

  auto courier = start_courier(config, scratch.path(), "courier");
  const auto dead_4xx = [&dlq] {
    std::size_t n = 0;
    for (const auto& d : dlq_records(dlq)) {
      n += d.error_class == "http_4xx" ? 1 : 0;
    }
    return n;
  };
  ASSERT_TRUE(wait_until([&] { return dead_4xx() == bad || !courier->running(); }, 60s))
      << tail(courier->log());

  // The outage.
  nginx.start_refusing(refusal{"$http_x_shipment", "~."});
  seed_shipments(s.topic, before, during, /*with_bad=*/false, shipment_of);
  ASSERT_TRUE(wait_until(
      [&] { return count_of(courier->log(), R"("to":"open")") > 0 || !courier->running(); }, 120s))
      << tail(courier->log());
  ASSERT_TRUE(courier->running()) << tail(courier->log());
  std::size_t dead_503 = 0;
  for (const auto& d : dlq_records(dlq)) {
    dead_503 += d.error_class == "http_503" ? 1 : 0;
  }
  ASSERT_GT(dead_503, 0U) << "the outage ran records out of their tiers before the breaker opened";

  // The preview, while the breaker is open: what an event fired now would move.
  const auto admin = admin_port_in(courier->log());
  ASSERT_GT(admin, 0);
  // 202 while its dry run of the DLQ is under way: asked again until it answers.
  std::optional<boost::beast::http::response<boost::beast::http::string_body>> preview;
  ASSERT_TRUE(wait_until(
      [&] {
        preview = loopback_exchange(boost::beast::http::verb::get, admin,
                                    "/routes/shipments/auto-redrive", "",
                                    {{"Authorization", "Bearer " + admin_token}}, 10s);
        return !preview || preview->result_int() != 202;
      },
      60s));
  ASSERT_TRUE(preview.has_value());
  ASSERT_EQ(preview->result_int(), 200U) << preview->body();
  const auto p = nlohmann::json::parse(preview->body());
  EXPECT_EQ(p["phase"], "open") << p.dump();
  EXPECT_GE(p["preview"]["would_move"].get<std::size_t>(), dead_503) << p.dump();

  nginx.stop_refusing();
  // Every shipment nginx accepts is answered 2xx: the held ones at once, the dead-lettered ones
  // once auto-redrive moved them back.
  std::set<std::string> good;
  for (const auto& [key, shipment] : shipment_of) {
    if (shipment.rfind("bad-", 0) != 0) {
      good.insert(key);
    }
  }
  const auto delivered = [&] {
    std::map<std::string, int> n;
    for (const auto& a : nginx.arrivals()) {
      if (a.status >= 200 && a.status < 300) {
        ++n[a.key];
      }
    }
    return n;
  };
  ASSERT_TRUE(
      wait_until([&] { return delivered().size() >= good.size() || !courier->running(); }, 120s))
      << delivered().size() << " of " << good.size() << " delivered\n"
      << tail(courier->log());
  const auto started = log_line(courier->log(), "auto-redrive started");
  ASSERT_TRUE(started.has_value()) << tail(courier->log());
  ASSERT_TRUE(wait_until(
      [&] { return log_line(courier->log(), "auto-redrive finished").has_value(); }, 60s))
      << tail(courier->log());
  const auto finished = *log_line(courier->log(), "auto-redrive finished");
  expect_clean_stop(*courier);

  // Exactly once by Idempotency-Key; nothing of a bad- shipment.
  const auto answered = delivered();
  for (const auto& key : good) {
    const auto it = answered.find(key);
    EXPECT_TRUE(it != answered.end() && it->second == 1)
        << key << " answered 2xx " << (it == answered.end() ? 0 : it->second) << " times";
  }
  for (const auto& [key, n] : answered) {
    EXPECT_EQ(good.count(key), 1U) << "a record nginx always refuses was answered 2xx: " << key;
  }

  // The DLQ: its 503s were moved, each once (the ledger), its 400s stay.
  std::set<std::string> ledger;
  for (const auto& r : read_to_end(dlq + ".redriven", 1, "read_committed", 30s)) {
    EXPECT_TRUE(ledger.insert(*r.key).second) << "redriven twice: " << *r.key;
  }
  std::size_t moved_503 = 0;
  std::size_t dead_400 = 0;
  for (const auto& d : dlq_records(dlq)) {
    if (d.error_class == "http_503") {
      ++moved_503;
      EXPECT_EQ(ledger.count(d.at), 1U) << d.at << " of " << d.key << " was not redriven";
    } else {
      EXPECT_EQ(d.error_class, "http_4xx") << d.at;
      EXPECT_EQ(shipment_of.at(d.key).rfind("bad-", 0), 0U) << d.key;
      EXPECT_EQ(ledger.count(d.at), 0U) << d.at << ": a 400 was redriven";
      ++dead_400;
    }
  }
  EXPECT_EQ(dead_400, bad) << "every bad- shipment is in the DLQ, once";
  EXPECT_EQ(ledger.size(), moved_503) << "the ledger holds every 503 of the DLQ, nothing else";
  EXPECT_EQ(finished.value("moved", std::size_t{0}), moved_503) << finished.dump();
  EXPECT_EQ(finished.value("failed", std::size_t{1}), 0U) << finished.dump();
  std::cout << dead_503 << " in the DLQ when the breaker opened, " << moved_503
            << " redriven automatically, " << dead_400 << " 400s left in the DLQ" << std::endl;
}

}  // namespace
}  // namespace courier::e2e
