// One topic, three endpoints, on the real broker (docs/endpoints.md): filters on a header and a
// JSON field, receipts on; each receiver gets exactly the records its filter selects, once, the
// records for none are counted filtered, every offset is committed, and `courier audit` proves
// each (record, endpoint) fate with none unaccounted.

#include <chrono>
#include <cstddef>
#include <memory>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "actors/messages.hpp"
#include "app/audit_command.hpp"
#include "core/kafka/producer.hpp"
#include "mock_webhook/server.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "topology/pipeline.hpp"
#include "topology/topics.hpp"

namespace courier::e2e {
namespace {

constexpr int partitions = 3;
constexpr std::size_t n = 90;

// Record i: partner ["acme", "zoom", "other"][i % 3], body {"id": i, "express": i % 2 == 1},
// to partition i % partitions.
struct shipment {
  std::string partner;
  bool express = false;
  std::string key;
};

std::vector<shipment> produce(const std::string& topic) {
  static const char* const partners[] = {"acme", "zoom", "other"};
  kafka::producer p{kafka_environment::bootstrap()};
  std::vector<shipment> out;
  for (std::size_t i = 0; i < n; ++i) {
    // Offsets are per partition: record i is the (i / partitions)-th of partition i % partitions.
    shipment sh{
        partners[i % 3], i % 2 == 1,
        topic + ":" + std::to_string(i % partitions) + ":" + std::to_string(i / partitions)};
    p.produce(topic, static_cast<std::int32_t>(i % partitions), std::nullopt,
              nlohmann::json{{"id", i}, {"express", sh.express}}.dump(),
              header_list{{"x-partner", sh.partner}});
    out.push_back(std::move(sh));
  }
  p.flush(30s);
  return out;
}

std::set<std::string> keys_of(const mock::server& r) {
  std::set<std::string> keys;
  for (const auto& a : r.arrivals()) {
    keys.insert(a.idempotency_key);
  }
  return keys;
}

std::set<std::string> expected(const std::vector<shipment>& all, bool (*goes)(const shipment&)) {
  std::set<std::string> out;
  for (const auto& sh : all) {
    if (goes(sh)) {
      out.insert(sh.key);
    }
  }
  return out;
}

TEST(EndToEndEndpoints, ThreeFilteredEndpointsEachGetTheirRecordsOnceAndTheAuditAccountsForAll) {
  auto acme = in_process_receiver();
  auto zoom = in_process_receiver();
  auto express = in_process_receiver();
  const auto group = unique_name("endpoints-group");
  const auto topic = unique_name("endpoints");
  const nlohmann::json route{{"name", "shipments"},
                             {"topic", topic},
                             {"hmac_secret", e2e_secret()},
                             {"allow_private_targets", true},
                             {"retry_tiers", {"1s", "2s"}},
                             {"receipts_topic", topic + ".receipts"},
                             {"endpoints",
                              {{{"name", "acme"},
                                {"url", acme->url()},
                                {"filter", {{"header", "x-partner"}, {"equals", "acme"}}}},
                               {{"name", "zoom"},
                                {"url", zoom->url()},
                                {"filter", {{"header", "x-partner"}, {"in", {"zoom"}}}}},
                               {{"name", "express"},
                                {"url", express->url()},
                                {"filter", {{"json", "/express"}, {"equals", true}}}}}}};
  auto cfg = parse_config({{"kafka", {{"brokers", kafka_environment::bootstrap()}}},
                           {"routes", nlohmann::json::array({route})}});
  cfg.kafka.group_id = group;
  cfg.kafka.properties = courier::testing::fast_group();
  cfg.kafka.properties["fetch.wait.max.ms"] = "50";
  validate(cfg);
  create_route_topics(cfg, partitions);
  const auto all = produce(topic);
  const auto for_acme = expected(all, [](const shipment& sh) { return sh.partner == "acme"; });
  const auto for_zoom = expected(all, [](const shipment& sh) { return sh.partner == "zoom"; });
  const auto for_express = expected(all, [](const shipment& sh) { return sh.express; });
  const auto for_none =
      expected(all, [](const shipment& sh) { return sh.partner == "other" && !sh.express; });

  caf::actor_system_config sys_cfg;
  actors::add_message_types(sys_cfg);
  caf::actor_system sys{sys_cfg};
  topology::pipeline p{sys, cfg, {}};
  ASSERT_TRUE(committed_reaches(group, topic, partitions, static_cast<std::int64_t>(n)));
  std::uint64_t filtered = 0;
  for (const auto& part : p.routes().front().metrics->partitions.snapshot()) {
    filtered += part.accounting.filtered;
  }
  p.stop();

  EXPECT_EQ(keys_of(*acme), for_acme);
  EXPECT_EQ(keys_of(*zoom), for_zoom);
  EXPECT_EQ(keys_of(*express), for_express);
  EXPECT_EQ(acme->snapshot().ok + zoom->snapshot().ok + express->snapshot().ok,
            for_acme.size() + for_zoom.size() + for_express.size())
      << "each (record, endpoint) once";
  EXPECT_EQ(filtered, for_none.size()) << "the records for no endpoint are counted filtered";

  app::audit_options o;
  o.route = "shipments";
  EXPECT_EQ(app::run_audit(cfg, o), 0) << "courier audit: a (record, endpoint) is unaccounted";
}

}  // namespace
}  // namespace courier::e2e
