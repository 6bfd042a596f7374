#pragma once

// The admin listener's endpoints (DESIGN.md section 7): GET /metrics (Prometheus text format
// 0.0.4), /healthz, /readyz and /state (JSON), and POST /routes/<name>/pause and /resume
// (topology/route_control.hpp). The rendering is pure functions of snapshots, so the texts are
// unit-tested; admin_endpoints takes the snapshots from a running pipeline.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/route_metrics.hpp"
#include "actors/router_metrics.hpp"
#include "topology/admin_exchange.hpp"
#include "topology/pipeline.hpp"
#include "topology/route_control.hpp"

namespace courier::topology {

// One route's counters and gauges, read from its route_metrics at scrape time (relaxed loads:
// no lock, nothing allocated per record).
struct route_snapshot {
  std::string name;
  std::string topic;
  std::string dlq_topic;
  // The route's counter tables (actors/route_metrics.hpp), loaded.
  delivery_counts deliveries;
  consumer_counts consumer;
  metrics::counter_array<actors::route_counter, std::uint64_t> actors;
  int breaker_state = 0;  // courier::breaker_state: 0 closed, 1 open, 2 half-open
  std::int64_t in_flight = 0;
  int concurrency_limit = 0;             // the adaptive limit; 0: the route has none
  double rate_limit = 0;                 // this instance's share of routes[].rate_limit; 0: none
  std::int64_t rate_limit_waiting = 0;   // attempts waiting for a token
  std::int64_t attempts_in_flight = 0;   // HTTP attempts posted, not answered
  std::int64_t credentials_waiting = 0;  // attempts waiting for the route's first credentials
  std::int64_t paused_partitions = 0;
  bool assigned = false;
  bool draining = false;
  bool operator_paused = false;  // POST /routes/<name>/pause, until /resume
  bool broker_reachable = true;
  bool endpoint_blocked = false;      // the SSRF guard refuses the endpoint now
  bool endpoint_gone = false;         // the receiver answered 410 and no 2xx came since
  std::int64_t breaker_since_ms = 0;  // the breaker's last change (0: closed since start)
  std::vector<actors::partition_report> partitions;
  const metrics::histogram* request_seconds = nullptr;   // rendered when set
  const metrics::histogram* delivery_seconds = nullptr;  // rendered when set
  const metrics::histogram* fetch_seconds = nullptr;     // rendered when set
};

route_snapshot snapshot_of(std::string name, const actors::route_metrics& m);

// The exposition of every route plus courier_build_info{version="..."} 1. Every series exists
// from the start (value 0), so rate() and absent() work before the first record.
// The retry router's counters (one router for every route).
struct router_snapshot {
  std::uint64_t produced = 0;
  std::uint64_t produce_failures = 0;
  std::int64_t records_failing = 0;
  std::uint64_t producer_rebuilds = 0;
  std::map<std::pair<std::string, std::string>, std::uint64_t> produced_by;  // (topic, class)
};

router_snapshot snapshot_of(const actors::router_metrics& m);

std::string render_metrics(const std::vector<route_snapshot>& routes,
                           std::string_view build_version, const router_snapshot& router = {});

// A check's answer: ok (200) or not (503), and a JSON body that says why.
struct verdict {
  bool ok = false;
  std::string body;
};

// /readyz: ready once every route's consumer was assigned at least once (an empty assignment
// counts) and none is draining, and the process is not stopping.
verdict readiness(const std::vector<route_snapshot>& routes, bool stopping);

// How one supervised actor answered the liveness ping.
struct actor_answer {
  enum class kind { answered, down, timed_out };
  std::string name;
  kind what = kind::answered;
};

// /healthz: healthy while every supervised actor answered its ping within the bound (a dead
// actor answers "down" at once, a stuck one times out).
verdict liveness(const std::vector<actor_answer>& answers, std::chrono::milliseconds bound);

// /state: per route the breaker, in-flight, paused partitions, readiness and counters. Built
// from the snapshots only: no configuration value (and so no hmac_secret) can appear in it.
std::string render_state(const std::vector<route_snapshot>& routes, std::string_view build_version);

inline constexpr std::string_view prometheus_content_type = "text/plain; version=0.0.4";

// How long POST /routes/<name>/pause or /resume waits for the route's consumer to answer.
inline constexpr std::chrono::milliseconds route_control_bound{5000};
// How long GET /routes/<name>/auto-redrive waits for its dry run of the DLQ before it answers
// 202 (ask again: the route keeps the dry run's answer for a while), and POST .../stop for its
// answer: the listener's command thread serves the other commands too.
inline constexpr std::chrono::milliseconds auto_redrive_bound{2000};

// What the listener serves, for a running pipeline. handle() runs on one of the listener's two
// handler threads (admin_lane), maybe on both at once: /healthz blocks its thread for at most
// ping_bound, a pause or resume the other for at most route_control_bound.
// `admin_token` (admin.token): the bearer token route control requires; empty: it is refused.
class admin_endpoints {
 public:
  admin_endpoints(caf::actor_system& system, const pipeline& p, std::string admin_token = {},
                  std::chrono::milliseconds ping_bound = std::chrono::seconds{1});

  admin_reply handle(const admin_request& req) const;
  // A request without an Authorization header (the GET endpoints need none).
  admin_reply handle(std::string_view method, std::string_view target) const;

  // The service is stopping (a signal or an actor's death): /readyz answers 503 from now on.
  void set_stopping() { stopping_ = true; }

  std::vector<route_snapshot> snapshots() const;
  // Pings every supervised actor (CAF's built-in ("sys", "get", "info") request, which an actor
  // answers from its own mailbox) with one deadline for all.
  std::vector<actor_answer> ping() const;

 private:
  caf::actor_system& system_;
  struct route_source {
    std::string name;
    std::string topic;
    std::string dlq_topic;
    std::shared_ptr<actors::route_metrics> metrics;
    caf::actor consumer;
    caf::actor auto_redrive;  // none without routes[].auto_redrive
  };
  // Sends the command to the route's consumer and waits for its answer (route_control_bound).
  admin_reply carry_out(const route_command& command) const;
  // Asks the route's auto-redrive for its preview or its stop (auto_redrive_bound).
  admin_reply carry_out_auto_redrive(const route_source& route, route_action action) const;

  std::vector<route_source> routes_;
  std::vector<std::string> route_names_;
  std::string admin_token_;
  std::shared_ptr<actors::router_metrics> router_;
  std::vector<std::pair<std::string, caf::actor>> actors_;
  std::chrono::milliseconds ping_bound_;
  std::atomic<bool> stopping_{false};
};

}  // namespace courier::topology
