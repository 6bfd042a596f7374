#include "topology/admin_routes.hpp"

#include <algorithm>
#include <optional>
#include <variant>

#include <nlohmann/json.hpp>

#include "actors/messages.hpp"
#include "core/log/json_log.hpp"
#include "core/metrics/exposition.hpp"
#include "core/time/civil_date.hpp"
#include "core/version.hpp"
#include "topology/admin_partitions.hpp"

namespace courier::topology {
namespace {

using metrics::exposition;
using metrics::family_type;
using nlohmann::json;

constexpr auto relaxed = std::memory_order_relaxed;

const char* breaker_name(int state) {
  switch (state) {
    case 0:
      return "closed";
    case 1:
      return "open";
    case 2:
      return "half_open";
    default:
      return "unknown";
  }
}

template <class E>
void load(metrics::counter_array<E, std::uint64_t>& to,
          const metrics::counter_array<E, std::atomic<std::uint64_t>>& from) {
  for (std::size_t i = 0; i < to.size(); ++i) {
    to.at_index(i) = from.at_index(i).load(relaxed);
  }
}

// A counter table's families, one sample per route and row.
template <class E>
void counters(exposition& e, const std::vector<route_snapshot>& routes,
              metrics::counter_array<E, std::uint64_t> route_snapshot::*table) {
  const auto& rows = metrics::counter_table<E>::rows;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    if (i == 0 || rows[i - 1].metric != row.metric) {
      e.family(row.metric, row.help, family_type::counter);
    }
    for (const auto& r : routes) {
      metrics::labels l{{"route", r.name}};
      if (!row.label.empty()) {
        l.emplace_back(std::string{row.label}, std::string{row.label_value});
      }
      const std::uint64_t n = (r.*table).at_index(i);
      if (row.scale == 1) {
        e.sample(row.metric, l, n);
      } else {
        e.sample(row.metric, l, static_cast<double>(n) * row.scale);
      }
    }
  }
}

// A counter table's rows that /state shows, into its "counters" object.
template <class E>
void state_counters(json& out, const metrics::counter_array<E, std::uint64_t>& values) {
  const auto& rows = metrics::counter_table<E>::rows;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].state_name.empty()) {
      continue;
    }
    if (rows[i].scale == 1) {
      out[std::string{rows[i].state_name}] = values.at_index(i);
    } else {
      out[std::string{rows[i].state_name}] =
          static_cast<double>(values.at_index(i)) * rows[i].scale;
    }
  }
}

template <class T>
void gauge(exposition& e, const std::vector<route_snapshot>& routes, std::string_view name,
           std::string_view help, T route_snapshot::*field) {
  e.family(name, help, family_type::gauge);
  for (const auto& r : routes) {
    e.sample(name, {{"route", r.name}}, static_cast<double>(r.*field));
  }
}

// A histogram family, one series per route that has the histogram.
void histogram(exposition& e, const std::vector<route_snapshot>& routes, std::string_view name,
               std::string_view help, const metrics::histogram* route_snapshot::*field) {
  e.family(name, help, family_type::histogram);
  for (const auto& r : routes) {
    if (const auto* h = r.*field) {
      h->render(e, name, {{"route", r.name}});
    }
  }
}

std::string dump(const json& j) { return j.dump() + "\n"; }

// Why the route's records are held for the endpoint's sake, not the records'.
json flags_of(const route_snapshot& r) {
  auto flags = json::array();
  if (r.endpoint_blocked) {
    flags.push_back("ssrf_blocked");
  }
  if (r.endpoint_gone) {
    flags.push_back("gone");
  }
  return flags;
}

}  // namespace

route_snapshot snapshot_of(std::string name, const actors::route_metrics& m) {
  route_snapshot s;
  s.name = std::move(name);
  load(s.deliveries, m.deliveries);
  load(s.consumer, m.consumer);
  load(s.actors, m.actors);
  s.endpoint_blocked = m.endpoint_blocked.load(relaxed);
  s.endpoint_gone = m.endpoint_gone.load(relaxed);
  s.breaker_state = m.breaker_state.load(relaxed);
  s.in_flight = m.in_flight.load(relaxed);
  s.concurrency_limit = m.concurrency_limit.load(relaxed);
  s.rate_limit = m.rate_limit.load(relaxed);
  s.rate_limit_waiting = m.rate_limit_waiting.load(relaxed);
  s.attempts_in_flight = m.attempts_in_flight.load(relaxed);
  s.credentials_waiting = m.credentials_waiting.load(relaxed);
  s.paused_partitions = m.paused_partitions.load(relaxed);
  s.assigned = m.assigned.load(relaxed);
  s.draining = m.draining.load(relaxed);
  s.operator_paused = m.operator_paused.load(relaxed);
  s.broker_reachable = m.broker_reachable.load(relaxed);
  s.breaker_since_ms = m.breaker_since_ms.load(relaxed);
  s.partitions = m.partitions.snapshot();
  return s;
}

router_snapshot snapshot_of(const actors::router_metrics& m) {
  return router_snapshot{m.produced.load(), m.produce_failures.load(), m.records_failing.load(),
                         m.producer_rebuilds.load(), m.produced_by()};
}

std::string render_metrics(const std::vector<route_snapshot>& routes,
                           std::string_view build_version, const router_snapshot& router) {
  exposition e;
  e.family("courier_retry_records_produced_total",
           "Retry-tier and DLQ records the broker acknowledged.", family_type::counter);
  e.sample("courier_retry_records_produced_total", {}, router.produced);
  e.family("courier_retry_records_produced_by_destination_total",
           "Retry-tier and DLQ records the broker acknowledged, by destination topic and "
           "courier.error.class.",
           family_type::counter);
  for (const auto& [key, n] : router.produced_by) {
    e.sample("courier_retry_records_produced_by_destination_total",
             {{"topic", key.first}, {"error_class", key.second}}, n);
  }
  e.family("courier_retry_produce_failures_total",
           "Failed tries to write a retry-tier or DLQ record (each is tried again; its "
           "partition is held meanwhile).",
           family_type::counter);
  e.sample("courier_retry_produce_failures_total", {}, router.produce_failures);
  e.family("courier_retry_records_failing", "Retry-tier and DLQ records whose latest try failed.",
           family_type::gauge);
  e.sample("courier_retry_records_failing", {}, static_cast<double>(router.records_failing));
  e.family("courier_retry_producer_rebuilds_total",
           "Producer rebuilds after a fatal idempotent-producer error.", family_type::counter);
  e.sample("courier_retry_producer_rebuilds_total", {}, router.producer_rebuilds);
  counters(e, routes, &route_snapshot::consumer);
  counters(e, routes, &route_snapshot::deliveries);
  counters(e, routes, &route_snapshot::actors);
  gauge(e, routes, "courier_endpoint_blocked",
        "1 while the SSRF guard refuses the route's endpoint (records are held).",
        &route_snapshot::endpoint_blocked);
  gauge(e, routes, "courier_endpoint_gone",
        "1 while the route is flagged gone: a 410 and no 2xx since (the breaker stays open).",
        &route_snapshot::endpoint_gone);
  gauge(e, routes, "courier_breaker_state", "Circuit breaker state: 0 closed, 1 open, 2 half-open.",
        &route_snapshot::breaker_state);
  gauge(e, routes, "courier_partitions_paused", "Partitions paused now.",
        &route_snapshot::paused_partitions);
  gauge(e, routes, "courier_in_flight", "Records in flight (taken, not yet done).",
        &route_snapshot::in_flight);
  gauge(e, routes, "courier_concurrency_limit",
        "The adaptive limit of HTTP attempts in flight (adaptive_concurrency); 0 when off.",
        &route_snapshot::concurrency_limit);
  gauge(e, routes, "courier_rate_limit_requests_per_second",
        "This instance's share of the route's rate limit (routes[].rate_limit) in requests a "
        "second; 0 when the route has none.",
        &route_snapshot::rate_limit);
  gauge(e, routes, "courier_attempts_in_flight",
        "HTTP attempts posted and not answered yet (records waiting for a token, a slot, the "
        "breaker or their backoff are in courier_in_flight, not here).",
        &route_snapshot::attempts_in_flight);
  gauge(e, routes, "courier_rate_limit_waiting",
        "Attempts waiting for a token of the route's rate limit (queued, holding no connection).",
        &route_snapshot::rate_limit_waiting);
  gauge(e, routes, "courier_credentials_waiting",
        "Attempts waiting for the route's first credentials (routes[].auth).",
        &route_snapshot::credentials_waiting);
  gauge(e, routes, "courier_consumer_assigned",
        "1 once the route's consumer got its first assignment.", &route_snapshot::assigned);
  gauge(e, routes, "courier_consumer_draining", "1 while the route's consumer drains.",
        &route_snapshot::draining);
  e.family("courier_route_paused",
           "1 while the route is paused as a whole, by reason (operator: POST "
           "/routes/<name>/pause until /resume).",
           family_type::gauge);
  for (const auto& r : routes) {
    e.sample("courier_route_paused", {{"route", r.name}, {"reason", "operator"}},
             std::uint64_t{r.operator_paused ? 1U : 0U});
  }
  render_partition_metrics(e, routes);
  histogram(e, routes, "courier_delivery_request_duration_seconds",
            "HTTP attempts by duration, from the request handed to the client to its answer.",
            &route_snapshot::request_seconds);
  histogram(e, routes, "courier_delivery_latency_seconds",
            "Delivered records by latency, from the record's Kafka timestamp to the webhook's 2xx "
            "(retry tiers included).",
            &route_snapshot::delivery_seconds);
  histogram(e, routes, "courier_consumer_fetch_latency_seconds",
            "Records taken from a route's source topics by the time from the record's Kafka "
            "timestamp to courier's poll (producer, broker, fetch and prefetch queue).",
            &route_snapshot::fetch_seconds);
  e.family("courier_route_info",
           "A route's topics; the value is always 1 (alerts join it for the topic names).",
           family_type::gauge);
  for (const auto& r : routes) {
    e.sample("courier_route_info",
             {{"route", r.name}, {"topic", r.topic}, {"dlq_topic", r.dlq_topic}}, std::uint64_t{1});
  }
  e.family("courier_build_info", "courier's version; the value is always 1.", family_type::gauge);
  e.sample("courier_build_info", {{"version", std::string{build_version}}}, std::uint64_t{1});
  return e.text();
}

verdict readiness(const std::vector<route_snapshot>& routes, bool stopping) {
  json waiting = json::array();
  json draining = json::array();
  for (const auto& r : routes) {
    if (r.draining) {
      draining.push_back(r.name);
    } else if (!r.assigned) {
      waiting.push_back(r.name);
    }
  }
  if (stopping || !draining.empty()) {
    return {false, dump({{"status", "not ready"},
                         {"reason", "stopping: the consumers drain"},
                         {"draining", draining}})};
  }
  if (!waiting.empty()) {
    return {false, dump({{"status", "not ready"},
                         {"reason", "waiting for the first partition assignment"},
                         {"routes", waiting}})};
  }
  json unreachable = json::array();
  for (const auto& r : routes) {
    if (!r.broker_reachable) {
      unreachable.push_back(r.name);
    }
  }
  if (!unreachable.empty()) {
    return {false, dump({{"status", "not ready"},
                         {"reason", "the broker is unreachable"},
                         {"routes", unreachable}})};
  }
  return {true, dump({{"status", "ready"}})};
}

verdict liveness(const std::vector<actor_answer>& answers, std::chrono::milliseconds bound) {
  json down = json::array();
  json silent = json::array();
  for (const auto& a : answers) {
    if (a.what == actor_answer::kind::down) {
      down.push_back(a.name);
    } else if (a.what == actor_answer::kind::timed_out) {
      silent.push_back(a.name);
    }
  }
  if (!down.empty()) {
    return {false, dump({{"status", "unhealthy"}, {"reason", "an actor is down"}, {"down", down}})};
  }
  if (!silent.empty()) {
    return {
        false,
        dump({{"status", "unhealthy"},
              {"reason", "an actor did not answer within " + std::to_string(bound.count()) + " ms"},
              {"not_answering", silent}})};
  }
  return {true, dump({{"status", "healthy"}, {"actors", answers.size()}})};
}

namespace {

json route_counters_json(const route_snapshot& r) {
  json out = json::object();
  state_counters(out, r.consumer);
  state_counters(out, r.deliveries);
  state_counters(out, r.actors);
  return out;
}

}  // namespace

std::string render_state(const std::vector<route_snapshot>& routes,
                         std::string_view build_version) {
  json out = {{"version", std::string{build_version}}, {"routes", json::array()}};
  for (const auto& r : routes) {
    out["routes"].push_back({
        {"name", r.name},
        {"breaker",
         {{"state", breaker_name(r.breaker_state)},
          {"since",
           r.breaker_since_ms > 0 ? json(format_rfc3339_ms(r.breaker_since_ms)) : json(nullptr)},
          {"trips", r.actors[actors::route_counter::breaker_trips]}}},
        {"in_flight", r.in_flight},
        {"concurrency_limit", r.concurrency_limit},
        {"attempts_in_flight", r.attempts_in_flight},
        {"rate_limit",
         {{"requests_per_second", r.rate_limit},
          {"waiting", r.rate_limit_waiting},
          {"waited_seconds",
           static_cast<double>(r.deliveries[delivery_counter::rate_limited_us]) * 1e-6}}},
        {"credentials_waiting", r.credentials_waiting},
        {"paused_partitions", r.paused_partitions},
        {"assigned", r.assigned},
        {"draining", r.draining},
        {"paused", r.operator_paused ? json("operator") : json(nullptr)},
        {"broker_reachable", r.broker_reachable},
        {"flags", flags_of(r)},
        {"counters", route_counters_json(r)},
        {"partitions", partitions_json(r)},
    });
  }
  return dump(out);
}

admin_endpoints::admin_endpoints(caf::actor_system& system, const pipeline& p,
                                 std::string admin_token, std::chrono::milliseconds ping_bound)
    : system_(system),
      admin_token_(std::move(admin_token)),
      router_(p.router_metrics()),
      actors_(p.actors()),
      ping_bound_(ping_bound) {
  for (const auto& g : p.routes()) {
    routes_.push_back({g.name, g.topic, g.dlq_topic, g.metrics, g.consumer, g.auto_redrive});
    route_names_.push_back(g.name);
  }
}

std::vector<route_snapshot> admin_endpoints::snapshots() const {
  std::vector<route_snapshot> out;
  out.reserve(routes_.size());
  for (const auto& r : routes_) {
    auto s = snapshot_of(r.name, *r.metrics);
    s.topic = r.topic;
    s.dlq_topic = r.dlq_topic;
    s.request_seconds = &r.metrics->request_seconds;  // alive: routes_ holds the metrics
    s.delivery_seconds = &r.metrics->delivery_seconds;
    s.fetch_seconds = &r.metrics->fetch_seconds;
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
                               [&](const route_source& r) { return r.name == command.route; });
  if (it == routes_.end()) {
    return {404, "application/json", dump({{"error", "no such route"}}), {}};
  }
  switch (command.action) {
    case route_action::pause:
    case route_action::resume:
      break;
    case route_action::auto_redrive_preview:
    case route_action::auto_redrive_stop:
      return carry_out_auto_redrive(*it, command.action);
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
            dump({{"error", timed_out ? "the route's consumer did not answer within " +
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

admin_reply admin_endpoints::carry_out_auto_redrive(const route_source& route,
                                                    route_action action) const {
  if (!route.auto_redrive) {
    return {404,
            "application/json",
            dump({{"error", "auto-redrive is off for this route: set routes[].auto_redrive"},
                  {"route", route.name}}),
            {}};
  }
  const bool stop = action == route_action::auto_redrive_stop;
  std::string answer;
  std::optional<caf::error> failed;
  {
    caf::scoped_actor self{system_};
    auto got = [&answer](const std::string& body) { answer = body; };
    auto refused = [&failed](const caf::error& e) { failed = e; };
    if (stop) {
      self->request(route.auto_redrive, auto_redrive_bound, actors::stop_atom::value)
          .receive(got, refused);
    } else {
      self->request(route.auto_redrive, auto_redrive_bound, caf::get_atom::value)
          .receive(got, refused);
    }
  }
  if (failed) {
    const bool timed_out = *failed == caf::sec::request_timeout;
    if (timed_out && !stop) {
      return {202,
              "application/json",
              dump({{"status", "the dry run of the DLQ is under way; ask again for its answer"},
                    {"route", route.name}}),
              {}};
    }
    return {503,
            "application/json",
            dump({{"error", timed_out ? "the route's auto-redrive did not answer within " +
                                            std::to_string(auto_redrive_bound.count()) + " ms"
                                      : "the route's auto-redrive is not running"},
                  {"route", route.name}}),
            {}};
  }
  if (stop) {
    log::info("auto-redrive stop by operator", {{"route", route.name}});
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
  const bool known =
      path == "/metrics" || path == "/healthz" || path == "/readyz" || path == "/state";
  if (!known) {
    return {404, "application/json",
            dump({{"error", "not found"},
                  {"endpoints",
                   {"/metrics", "/healthz", "/readyz", "/state", "POST /routes/<name>/pause",
                    "POST /routes/<name>/resume", "GET /routes/<name>/auto-redrive",
                    "POST /routes/<name>/auto-redrive/stop"}}})};
  }
  if (method != "GET" && method != "HEAD") {
    return {405,
            "application/json",
            dump({{"error", "method not allowed; use GET"}}),
            {{"Allow", "GET, HEAD"}}};
  }
  if (path == "/metrics") {
    return {200, std::string{prometheus_content_type},
            render_metrics(snapshots(), courier::version, snapshot_of(*router_))};
  }
  if (path == "/state") {
    return {200, "application/json", render_state(snapshots(), courier::version)};
  }
  const verdict v =
      path == "/readyz" ? readiness(snapshots(), stopping_.load()) : liveness(ping(), ping_bound_);
  return {v.ok ? 200 : 503, "application/json", v.body};
}

}  // namespace courier::topology
