#pragma once

// The admin listener's endpoints (DESIGN.md section 7): GET /metrics, /healthz, /readyz and
// /state, and the route commands under /routes/<name>/ (admin/route_control.hpp). The pages
// and verdicts are pure functions of snapshots (metrics_page, state_page, health);
// admin_endpoints takes the snapshots from the service's handles (route_handle.hpp), dispatches
// a request and carries a route command out.

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/route_metrics.hpp"
#include "actors/router_metrics.hpp"
#include "admin/exchange.hpp"
#include "admin/health.hpp"
#include "admin/route_control.hpp"
#include "admin/route_handle.hpp"
#include "admin/snapshot.hpp"

namespace courier::admin {

// How long POST /routes/<name>/pause or /resume waits for the route's consumer to answer.
inline constexpr std::chrono::milliseconds route_control_bound{5000};
// How long GET /routes/<name>/auto-redrive waits for its dry run of the DLQ before it answers
// 202 (ask again: the route keeps the dry run's answer for a while), and POST .../stop for its
// answer: the listener's command thread serves the other commands too.
inline constexpr std::chrono::milliseconds auto_redrive_bound{2000};

// What the listener serves, for a running service. handle() runs on one of the listener's two
// handler threads (admin_lane), maybe on both at once: /healthz blocks its thread for at most
// ping_bound, a pause or resume the other for at most route_control_bound.
// `admin_token` (admin.token): the bearer token route control requires; empty: it is refused.
class admin_endpoints {
 public:
  admin_endpoints(caf::actor_system& system, service_handles service, std::string admin_token = {},
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
  // Sends the command to the route's consumer and waits for its answer (route_control_bound).
  admin_reply carry_out(const route_command& command) const;
  // Asks the route's auto-redrive for its preview or its stop (auto_redrive_bound).
  admin_reply carry_out_auto_redrive(const route_handle& route, route_action action) const;
  admin_reply carry_out_endpoint(const route_handle& route, const route_command& command) const;

  std::vector<route_handle> routes_;
  std::vector<std::string> route_names_;
  std::string admin_token_;
  std::shared_ptr<actors::router_metrics> router_;
  std::vector<std::pair<std::string, caf::actor>> actors_;
  std::chrono::milliseconds ping_bound_;
  std::atomic<bool> stopping_{false};
};

}  // namespace courier::admin
