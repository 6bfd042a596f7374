#pragma once

// An embedded stand for integration tests: librdkafka's mock cluster, the real mock_webhook
// server on loopback, seeded shipments and a courier configuration pointing at both.

#include <chrono>
#include <memory>
#include <set>
#include <string>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/route_metrics.hpp"
#include "core/config/config.hpp"
#include "core/kafka/admin.hpp"
#include "core/kafka_mock/mock_cluster.hpp"
#include "core/kafka/producer.hpp"
#include "mock_webhook/server.hpp"
#include "demo/shipments.hpp"
#include "topology/topics.hpp"
#include "tests/support/kafka_group.hpp"
#include "tests/support/wait_until.hpp"

namespace courier::testing {

inline std::string test_secret() { return "integration-secret"; }

struct stand {
  explicit stand(int partitions, mock::server_settings ws = {}) : partitions_(partitions) {
    ws.hmac_secret = test_secret();
    receiver = std::make_unique<mock::server>(ws);
    receiver->start();

    cfg.kafka.brokers = cluster.bootstrap_servers();
    cfg.kafka.group_id = "courier-it";
    // Short sessions: see fast_group().
    cfg.kafka.properties = fast_group();
    route_config r;
    r.name = "shipments";
    r.topic = topic;
    r.url = receiver->url();
    r.hmac_secret = test_secret();
    r.allow_private_targets = true;  // the mock webhook listens on loopback
    r.retry.initial = std::chrono::milliseconds{20};
    r.retry.max = std::chrono::milliseconds{200};
    r.retry_tiers = {std::chrono::milliseconds{300}, std::chrono::milliseconds{600}};
    r.http.timeout = std::chrono::milliseconds{1000};
    r.breaker.open_timeout = std::chrono::milliseconds{500};
    r.pause_after = std::chrono::milliseconds{500};
    cfg.routes.push_back(r);
    for (const auto& t : topology::required_topics(cfg)) {
      cluster.create_topic(t, partitions);
    }

    actors::add_message_types(sys_cfg);
  }

  void seed(std::size_t n) {
    kafka::producer p{cluster.bootstrap_servers()};
    demo::seed_shipments(p, topic, n, /*seed=*/7);
    seeded += n;
  }

  route_config& route() { return cfg.routes.front(); }

  // The group's committed offsets on the source topic, added up: with nothing skipped, the
  // number of records the partitions committed past.
  long long committed_total() const {
    long long sum = 0;
    for (const auto& [partition, offset] : kafka::committed_offsets(
             cfg.kafka.brokers, cfg.kafka.group_id, topic, partitions_, std::chrono::seconds{10})) {
      sum += offset;
    }
    return sum;
  }

  // Whether the route's consumer holds every partition of its source and its retry tiers (both
  // group members assigned) within `within`. A test that counts commits after stop() waits for
  // it first: a stop during a rebalance leaves the last commit to the partitions' next owner,
  // which at-least-once allows, and librdkafka's mock coordinator takes the session timeout less
  // 1 s a round, so a member whose JoinGroup came after the first generation formed keeps the
  // group rebalancing for up to three rounds (15 s), longer than a leaving commit waits for it.
  bool wait_group_settled(const actors::route_metrics& m,
                          std::chrono::seconds within = std::chrono::seconds{30}) const {
    // Every partition of the topics it consumes, as the cluster has them (a tier a test adds
    // after the stand made its topics is auto-created with the mock's default count).
    std::size_t want = 0;
    for (const auto& t : topics_of(cfg.routes.front()).consumed()) {
      want += static_cast<std::size_t>(
          kafka::partition_count(kafka::cluster{cfg.kafka.brokers}, t, std::chrono::seconds{10}));
    }
    return wait_until(
        [&] {
          std::size_t held = 0;
          for (const auto& p : m.partitions.snapshot()) {
            held += p.assigned ? 1 : 0;
          }
          return held == want;
        },
        within);
  }

  const std::string topic = "brew.shipments.v1";
  const std::string dlq = "brew.shipments.dlq";
  int partitions_;
  kafka::mock_cluster cluster{1};
  std::unique_ptr<mock::server> receiver;
  courier_config cfg;
  caf::actor_system_config sys_cfg;
  std::size_t seeded = 0;
};

// The Idempotency-Keys the receiver answered 200 for the first time.
inline std::set<std::string> delivered_keys(const mock::server& receiver) {
  std::set<std::string> keys;
  for (const auto& a : receiver.arrivals()) {
    keys.insert(a.idempotency_key);
  }
  return keys;
}

}  // namespace courier::testing
