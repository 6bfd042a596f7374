#include "admin/endpoints.hpp"

#include <algorithm>
#include <optional>
#include <variant>

#include <nlohmann/json.hpp>

#include "actors/messages.hpp"
#include "actors/route_metrics.hpp"
#include "core/log/json_log.hpp"
#include "core/version.hpp"
#include "admin/json_body.hpp"
#include "admin/metrics_page.hpp"
#include "admin/state_page.hpp"
#include "admin/status_page.hpp"

namespace courier::admin {

using nlohmann::json;

admin_endpoints::admin_endpoints(caf::actor_system& system, service_handles service,
                                 std::string admin_token, std::chrono::milliseconds ping_bound)
    : system_(system),
      routes_(std::move(service.routes)),
      admin_token_(std::move(admin_token)),
      router_(std::move(service.router)),
      actors_(std::move(service.actors)),
      ping_bound_(ping_bound) {
  for (const auto& r : routes_) {
    route_names_.push_back(r.name);
  }
}

std::vector<route_snapshot> admin_endpoints::snapshots() const {
  std::vector<route_snapshot> out;
  out.reserve(routes_.size());
  const auto router = snapshot_of(*router_);
  for (const auto& r : routes_) {
    auto s = snapshot_of(r.name, *r.metrics);
    s.topic = r.topic;
    s.dlq_topic = r.dlq_topic;
    s.auto_redrive = static_cast<bool>(r.auto_redrive);
    for (const auto& [where, n] : router.produced_by) {
      if (where.first == r.dlq_topic) {
        s.dead_lettered_by_class[where.second] += n;
      }
    }
    s.request_seconds = &r.metrics->request_seconds;  // alive: routes_ holds the metrics
    s.delivery_seconds = &r.metrics->delivery_seconds;
    s.fetch_seconds = &r.metrics->fetch_seconds;
    for (const auto& e : r.endpoints) {
      s.auto_redrive = s.auto_redrive || static_cast<bool>(e.auto_redrive);
      auto es = snapshot_of(e.name, *e.metrics);
      es.request_seconds = &e.metrics->request_seconds;
      es.delivery_seconds = &e.metrics->delivery_seconds;
      add_endpoint(s, std::move(es));
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<actor_answer> admin_endpoints::ping() const {
  std::vector<actor_answer> out;
  caf::scoped_actor self{system_};
  const auto deadline = std::chrono::steady_clock::now() + ping_bound_;
  for (const auto& [name, actor] : actors_) {
    const auto left = std::max(std::chrono::milliseconds{1},
                               std::chrono::duration_cast<std::chrono::milliseconds>(
                                   deadline - std::chrono::steady_clock::now()));
    actor_answer a{name, actor_answer::kind::answered};
    self->request(actor, left, caf::sys_atom::value, caf::get_atom::value, std::string{"info"})
        .receive([](caf::ok_atom, const std::string&, const caf::strong_actor_ptr&,
                    const std::string&) {},
                 [&a](const caf::error& e) {
                   a.what = e == caf::sec::request_timeout ? actor_answer::kind::timed_out
                                                           : actor_answer::kind::down;
                 });
    out.push_back(std::move(a));
  }
  return out;
}

admin_reply admin_endpoints::carry_out(const route_command& command) const {
  const auto it = std::find_if(routes_.begin(), routes_.end(),
                               [&](const route_handle& r) { return r.name == command.route; });
  if (it == routes_.end()) {
    return {404, "application/json", json_body({{"error", "no such route"}}), {}};
  }
  switch (command.action) {
    case route_action::pause:
    case route_action::resume:
      break;
    case route_action::auto_redrive_preview:
    case route_action::auto_redrive_stop:
      return carry_out_auto_redrive(*it, command.action);
    case route_action::endpoint_pause:
    case route_action::endpoint_resume:
      return carry_out_endpoint(*it, command);
  }
  const bool pause = command.action == route_action::pause;
  std::vector<std::string> changed;
  std::optional<caf::error> failed;
  {
    caf::scoped_actor self{system_};
    auto answer = [&changed](const std::vector<std::string>& partitions) { changed = partitions; };
    auto refused = [&failed](const caf::error& e) { failed = e; };
    if (pause) {
      self->request(it->consumer, route_control_bound, actors::pause_atom::value,
                    pause_reason::operator_request)
          .receive(answer, refused);
    } else {
      self->request(it->consumer, route_control_bound, actors::resume_atom::value,
                    pause_reason::operator_request)
          .receive(answer, refused);
    }
  }
  if (failed) {
    // A late answer still takes effect: the consumer handles the message when it gets to it.
    const bool timed_out = *failed == caf::sec::request_timeout;
    log::warn(pause ? "route pause by operator failed" : "route resume by operator failed",
              {{"route", command.route}, {"error", timed_out ? "timeout" : "consumer down"}});
    return {503,
            "application/json",
            json_body({{"error", timed_out ? "the route's consumer did not answer within " +
                                                 std::to_string(route_control_bound.count()) +
                                                 " ms; the request may still take effect"
                                           : "the route's consumer is not running"},
                       {"route", command.route}}),
            {}};
  }
  log::info(pause ? "route paused by operator" : "route resumed by operator",
            {{"route", command.route}, {"partitions", changed}});
  return render_route_controlled(command, changed);
}

admin_reply admin_endpoints::carry_out_endpoint(const route_handle& route,
                                                const route_command& command) const {
  const auto it =
      std::find_if(route.endpoints.begin(), route.endpoints.end(),
                   [&](const endpoint_handle& e) { return e.name == command.endpoint; });
  if (it == route.endpoints.end()) {
    json names = json::array();
    for (const auto& e : route.endpoints) {
      names.push_back(e.name);
    }
    return {404,
            "application/json",
            json_body({{"error", route.endpoints.empty()
                                     ? "the route has one endpoint: pause the route itself"
                                     : "no such endpoint"},
                       {"route", route.name},
                       {"endpoint", command.endpoint},
                       {"endpoints", names}}),
            {}};
  }
  const bool pause = command.action == route_action::endpoint_pause;
  std::optional<caf::error> failed;
  {
    caf::scoped_actor self{system_};
    auto refused = [&failed](const caf::error& e) { failed = e; };
    if (pause) {
      self->request(it->delivery, route_control_bound, actors::pause_atom::value,
                    pause_reason::operator_request)
          .receive([](bool) {}, refused);
    } else {
      self->request(it->delivery, route_control_bound, actors::resume_atom::value,
                    pause_reason::operator_request)
          .receive([](bool) {}, refused);
    }
  }
  const std::string what = pause ? "endpoint paused by operator" : "endpoint resumed by operator";
  if (failed) {
    log::warn(what + " failed", {{"route", route.name}, {"endpoint", command.endpoint}});
    return {503,
            "application/json",
            json_body({{"error", "the endpoint's delivery pool did not answer"},
                       {"route", route.name},
                       {"endpoint", command.endpoint}}),
            {}};
  }
  log::info(what, {{"route", route.name}, {"endpoint", command.endpoint}});
  return render_route_controlled(command, {});
}

namespace {

// One auto-redrive's answer to a preview or a stop: its JSON, or why there is none.
struct auto_redrive_answer {
  std::string body;
  std::optional<caf::error> failed;
};

auto_redrive_answer ask_auto_redrive(caf::actor_system& system, const caf::actor& a, bool stop) {
  auto_redrive_answer out;
  caf::scoped_actor self{system};
  auto got = [&out](const std::string& body) { out.body = body; };
  auto refused = [&out](const caf::error& e) { out.failed = e; };
  if (stop) {
    self->request(a, auto_redrive_bound, actors::stop_atom::value).receive(got, refused);
  } else {
    self->request(a, auto_redrive_bound, caf::get_atom::value).receive(got, refused);
  }
  return out;
}

}  // namespace

admin_reply admin_endpoints::carry_out_auto_redrive(const route_handle& route,
                                                    route_action action) const {
  // A route with one endpoint has one auto-redrive; one with several, one per endpoint, each
  // answering under its endpoint's name.
  std::vector<std::pair<std::string, caf::actor>> asked;
  if (route.auto_redrive) {
    asked.emplace_back(std::string{}, route.auto_redrive);
  }
  for (const auto& e : route.endpoints) {
    if (e.auto_redrive) {
      asked.emplace_back(e.name, e.auto_redrive);
    }
  }
  if (asked.empty()) {
    return {404,
            "application/json",
            json_body({{"error", "auto-redrive is off for this route: set routes[].auto_redrive"},
                       {"route", route.name}}),
            {}};
  }
  const bool stop = action == route_action::auto_redrive_stop;
  nlohmann::json endpoints = nlohmann::json::object();
  std::string answer;
  for (const auto& [endpoint, actor] : asked) {
    auto got = ask_auto_redrive(system_, actor, stop);
    if (got.failed) {
      const bool timed_out = *got.failed == caf::sec::request_timeout;
      if (timed_out && !stop) {
        return {
            202,
            "application/json",
            json_body({{"status", "the dry run of the DLQ is under way; ask again for its answer"},
                       {"route", route.name}}),
            {}};
      }
      return {
          503,
          "application/json",
          json_body({{"error", timed_out ? "the route's auto-redrive did not answer within " +
                                               std::to_string(auto_redrive_bound.count()) + " ms"
                                         : "the route's auto-redrive is not running"},
                     {"route", route.name}}),
          {}};
    }
    if (endpoint.empty()) {
      answer = std::move(got.body);
    } else {
      endpoints[endpoint] = nlohmann::json::parse(got.body);
    }
  }
  if (stop) {
    log::info("auto-redrive stop by operator", {{"route", route.name}});
  }
  if (!endpoints.empty()) {
    answer = nlohmann::json{{"route", route.name}, {"endpoints", endpoints}}.dump();
  }
  return {200, "application/json", answer + "\n", {}};
}

admin_reply admin_endpoints::handle(const admin_request& req) const {
  if (!is_route_control_target(req.target)) {
    return handle(req.method, req.target);
  }
  auto decided = decide_route_control(req, admin_token_, route_names_);
  if (auto* refusal = std::get_if<admin_reply>(&decided)) {
    return std::move(*refusal);
  }
  return carry_out(std::get<route_command>(decided));
}

// Distinct by role: an HTTP method and target, in request-line order.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
admin_reply admin_endpoints::handle(std::string_view method, std::string_view target) const {
  if (is_route_control_target(target)) {
    return handle(admin_request{method, target, {}});
  }
  const auto path = target.substr(0, target.find('?'));
  const bool known = path == "/" || path == "/metrics" || path == "/healthz" || path == "/readyz" ||
                     path == "/state";
  if (!known) {
    return {
        404, "application/json",
        json_body({{"error", "not found"},
                   {"endpoints",
                    {"/", "/metrics", "/healthz", "/readyz", "/state", "POST /routes/<name>/pause",
                     "POST /routes/<name>/resume", "GET /routes/<name>/auto-redrive",
                     "POST /routes/<name>/auto-redrive/stop"}}})};
  }
  if (method != "GET" && method != "HEAD") {
    return {405,
            "application/json",
            json_body({{"error", "method not allowed; use GET"}}),
            {{"Allow", "GET, HEAD"}}};
  }
  if (path == "/metrics") {
    return {200, std::string{prometheus_content_type},
            render_metrics(snapshots(), courier::version, snapshot_of(*router_))};
  }
  if (path == "/state") {
    return {200, "application/json", render_state(snapshots(), courier::version)};
  }
  if (path == "/") {
    return {200, "text/html; charset=utf-8", std::string{status_page()}};
  }
  const verdict v = path == "/readyz"
                        ? readiness(snapshots(), stopping_.load())
                        : liveness(ping(), ping_bound_, snapshots(), actors::steady_now_ms());
  return {v.ok ? 200 : 503, "application/json", v.body};
}

}  // namespace courier::admin
