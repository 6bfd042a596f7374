#pragma once

// An embedded stand for integration tests: librdkafka's mock cluster, the real mock_webhook
// server on loopback, seeded shipments and a courier configuration pointing at both.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "core/config/config.hpp"
#include "core/kafka_mock/mock_cluster.hpp"
#include "core/kafka/producer.hpp"
#include "mock_webhook/server.hpp"
#include "demo/shipments.hpp"
#include "topology/topics.hpp"

namespace courier::testing {

// Polls `done` until it holds or `timeout` passes; returns its last value.
inline bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  return done();
}

inline std::map<std::string, std::string> fast_group() {
  return {{"heartbeat.interval.ms", "500"}, {"session.timeout.ms", "6000"}};
}

inline std::string test_secret() {
  return "integration-secret";
}

struct stand {
  explicit stand(int partitions, mock::server_settings ws = {}) : partitions_(partitions) {
    ws.hmac_secret = test_secret();
    receiver = std::make_unique<mock::server>(ws);
    receiver->start();

    cfg.kafka.brokers = cluster.bootstrap_servers();
    cfg.kafka.group_id = "courier-it";
    // librdkafka 2.0.2's mock coordinator lets a new member join only after the departed
    // members' sessions expired, LeaveGroup or not: keep sessions short.
    cfg.kafka.properties = fast_group();
    route_config r;
    r.name = "shipments";
    r.topic = topic;
    r.url = receiver->url();
    r.hmac_secret = test_secret();
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

  const std::string topic = "brew.shipments.v1";
  const std::string dlq = "brew.shipments.dlq";
  int partitions_;
  kafka::mock_cluster cluster{1};
  std::unique_ptr<mock::server> receiver;
  courier_config cfg;
  caf::actor_system_config sys_cfg;
  std::size_t seeded = 0;
};

}  // namespace courier::testing
