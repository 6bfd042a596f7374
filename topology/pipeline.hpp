#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/route_metrics.hpp"
#include "actors/router_metrics.hpp"
#include "core/auth/credential.hpp"
#include "core/config/config.hpp"
#include "core/http/client.hpp"
#include "core/http/io_threads.hpp"

namespace courier::topology {

struct pipeline_options {
  std::chrono::milliseconds drain_timeout{10000};
  std::uint64_t seed = 0;  // 0: random
};

// The properties of the retry router's producer (one for all routes): kafka.properties with
// rewrite_producer_properties' size and compression (core/retry/rewrite_producer.hpp), so a
// source record that came compressed and is larger than its topic's limit uncompressed still
// reaches its tier or the DLQ.
std::map<std::string, std::string> retry_producer_properties(const courier_config& cfg);

// The actors of one endpoint (one partner) of a route: its HTTP client, breaker and delivery
// pool, and with routes[].auth the keeper of its Authorization value and for OAuth2 its token
// endpoint's client.
struct endpoint_graph {
  std::string name;                                // the route's name for a route with one endpoint
  std::shared_ptr<actors::route_metrics> metrics;  // the route's for a route with one endpoint
  std::shared_ptr<http::client> client;
  caf::actor breaker;
  caf::actor delivery;
  caf::actor credentials;
  std::shared_ptr<http::client> token_client;
  // With routes[].auto_redrive: redrives the DLQ records of this endpoint (of a route with one:
  // the route's) after its breaker's outage (a subscriber of its breaker).
  caf::actor auto_redrive;
};

// The actor graph of one route: its endpoints' graphs, the consumer, and between them the
// route's delivery pool (one endpoint) or its fan-out (several: actors/endpoint_fanout_actor);
// the pause controller follows its endpoints' breakers.
struct route_graph {
  std::string name;
  std::string topic;  // the route's source topic
  std::string dlq_topic;
  std::shared_ptr<actors::route_metrics> metrics;
  std::vector<endpoint_graph> endpoints;
  caf::actor pause_controller;  // follows the joint state of its endpoints' breakers
  caf::actor delivery;          // the consumer's: the endpoint's pool, or the fan-out
  caf::actor consumer;
};

// How the graph stopped: each actor that ended otherwise than it was asked to (a consumer whose
// final commit failed, an actor that died meanwhile), and whether one is still running past its
// bound, so the process can exit non-zero instead of saying "stopped" over a failure.
struct stop_report {
  std::vector<std::string> problems;  // "consumer of route shipments: unhandled_exception"
  bool timed_out = false;             // an actor did not stop within its bound

  [[nodiscard]] bool clean() const { return problems.empty() && !timed_out; }
};

// Spawns the actor graph of every route from the configuration (DESIGN.md section 2) and
// stops it gracefully.
class pipeline {
 public:
  // `credentials`: start-up's credential of each route with routes[].auth, by route name
  // (first_credentials, topology/credentials.hpp); a route without one has its credential keeper
  // fetch (read) its own.
  pipeline(caf::actor_system& system, const courier_config& cfg, pipeline_options options,
           std::map<std::string, auth::credential> credentials = {});
  ~pipeline();

  pipeline(const pipeline&) = delete;
  pipeline& operator=(const pipeline&) = delete;

  // Stops fetching, lets in-flight deliveries finish (bounded by drain_timeout), commits,
  // closes the consumers, then stops the other actors and the HTTP client. Idempotent: a
  // second call returns the first one's report. Each problem is also logged as an error.
  const stop_report& stop();

  const std::vector<route_graph>& routes() const;
  const std::shared_ptr<actors::router_metrics>& router_metrics() const { return router_metrics_; }

  // Every actor of the graph with a name for logs ("consumer of route shipments").
  std::vector<std::pair<std::string, caf::actor>> actors() const;

 private:
  void spawn_graph(const courier_config& cfg);
  void spawn_endpoint(const route_endpoint& endpoint, endpoint_graph& e, std::uint64_t seed,
                      bool several);

  caf::actor_system& system_;
  pipeline_options options_;
  std::map<std::string, auth::credential> credentials_;
  http::io_threads io_;  // cfg.http_io_threads of them, shared by every route's client
  caf::actor router_;    // one producer for every route's retry tiers and DLQ
  std::shared_ptr<actors::router_metrics> router_metrics_ =
      std::make_shared<actors::router_metrics>();
  std::vector<route_graph> routes_;
  bool stopped_ = false;
  stop_report report_;
};

}  // namespace courier::topology
