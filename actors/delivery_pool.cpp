#include "actors/delivery_pool.hpp"

#include <chrono>

#include "actors/failure_log.hpp"
#include "core/log/json_log.hpp"
#include "core/retry/header_value.hpp"  // max_header_value

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<delivery_pool_state>*;
using policy = attempt_policy;

attempt_policy_settings settings_of(route_config route) {
  attempt_policy_settings s;
  s.route = std::move(route.name);
  s.source_topic = std::move(route.topic);
  s.retry_tiers = std::move(route.retry_tiers);
  s.dlq_topic = std::move(route.dlq_topic);
  s.content_type = std::move(route.content_type);
  s.hmac_secret = std::move(route.hmac_secret);
  s.backoff = backoff_policy{route.retry.initial, route.retry.multiplier, route.retry.max,
                             route.retry.max_attempts, route.retry.max_retry_after};
  s.judge = answer_judge_settings{std::move(route.breaker.endpoint_failure_statuses),
                                  route.breaker.trip_on_permanent_run};
  return s;
}

// On the HTTP client's thread: what travels back to the actor.
attempt_result to_attempt_result(std::uint64_t id, const http::response& r) {
  attempt_result out;
  out.delivery_id = id;
  out.status = r.status;
  out.transport = static_cast<std::uint8_t>(r.error);
  out.error_message = r.error_message;
  out.has_retry_after = r.retry_after.has_value();
  out.retry_after = r.retry_after.value_or(std::string{});
  out.body = r.body.substr(0, max_header_value);
  return out;
}

attempt_answer to_answer(const attempt_result& r) {
  return attempt_answer{
    r.delivery_id,
    r.status,
    static_cast<transport_error>(r.transport),
    r.error_message,
    r.has_retry_after ? std::optional<std::string>{r.retry_after} : std::nullopt,
    r.body};
}

outcome_kind to_outcome_kind(policy::outcome how) {
  switch (how) {
    case policy::outcome::delivered:
      return outcome_kind::delivered;
    case policy::outcome::retried:
      return outcome_kind::retried;
    case policy::outcome::dead_lettered:
      return outcome_kind::dead_lettered;
  }
  return outcome_kind::delivered;
}

// Adds what the policy counted since the last event to the route's metrics.
void publish(delivery_pool_state& st) {
  const auto& now = st.policy->counts();
  auto& was = st.published;
  auto& m = *st.metrics;
  m.attempts += now.attempts - was.attempts;
  m.delivered += now.delivered - was.delivered;
  m.retries += now.retries - was.retries;
  m.exhausted += now.exhausted - was.exhausted;
  m.permanent += now.permanent - was.permanent;
  m.endpoint_failures += now.endpoint_failures - was.endpoint_failures;
  m.ssrf_blocked += now.ssrf_blocked - was.ssrf_blocked;
  m.endpoint_blocked = st.policy->endpoint_blocked();
  m.head_of_line_moves += now.head_of_line_moves - was.head_of_line_moves;
  m.retried_to_tier += now.retried_to_tier - was.retried_to_tier;
  m.dead_lettered += now.dead_lettered - was.dead_lettered;
  was = now;
  m.in_flight = static_cast<std::int64_t>(st.policy->in_flight());
}

void carry_out(self_ptr self, policy::actions todo);

struct shell {
  self_ptr self;

  void operator()(policy::request_permit& a) const {
    const auto id = a.id;
    self->request(self->state.breaker, caf::infinite, permit_atom::value)
      .then([s = self, id](const breaker_permit& p) {
        carry_out(s,
                  s->state.policy->on_permit(id, attempt_permit{p.granted, p.probe, p.generation}));
      });
  }

  void operator()(policy::post_attempt& a) const {
    auto handle = caf::actor_cast<caf::actor>(self);
    const auto started = std::chrono::steady_clock::now();
    self->state.client->post(
      std::move(a.request),
      [handle, id = a.id, started, m = self->state.metrics](const http::response& r) {
        m->request_seconds.observe(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        caf::anon_send(handle, attempted_atom::value, to_attempt_result(id, r));
      });
  }

  void operator()(policy::schedule_retry& a) const {
    self->delayed_send(self, a.delay, attempt_atom::value, a.id);
  }

  void operator()(policy::breaker_outcome& a) const {
    self->send(self->state.breaker, outcome_atom::value, a.success, a.probe, a.generation);
  }

  void operator()(policy::produce_onward& a) const {
    auto& r = a.onward;
    const auto id = a.id;
    dispatch_request req;
    req.topic = std::move(r.topic);
    req.partition = r.partition;
    req.has_key = r.key.has_value();
    req.key = r.key.value_or(std::string{});
    req.value = std::move(r.value);
    req.headers = std::move(r.headers);
    if (const auto* d = self->state.policy->find(id)) {
      req.from_topic = d->rec.topic;
      req.from_partition = d->rec.partition;
      req.from_offset = d->rec.offset;
    }
    req.tag = id;
    self->request(self->state.router, caf::infinite, route_atom::value, std::move(req))
      .then([s = self, id](bool) { carry_out(s, s->state.policy->on_onward_acked(id)); },
            [s = self, id](const caf::error& err) {
              // Only when the router is gone (shutdown): the record stays uncommitted.
              carry_out(s, s->state.policy->on_onward_failed(id, to_string(err)));
              s->state.consumers.erase(id);
            });
  }

  void operator()(policy::report_outcome& a) const {
    auto it = self->state.consumers.find(a.id);
    if (it == self->state.consumers.end()) {
      return;
    }
    self->send(it->second, outcome_atom::value,
               delivery_outcome{std::move(a.topic), a.partition, a.offset, to_outcome_kind(a.how),
                                a.attempts, a.status, std::move(a.error_class)});
    self->state.consumers.erase(it);
  }

  void operator()(policy::log_line& a) const {
    auto fields = nlohmann::json::object();
    for (auto& [name, value] : a.fields) {
      std::visit([&fields, &name = name](auto& v) { fields[name] = std::move(v); }, value);
    }
    switch (a.level) {
      case policy::log_level::info:
        log::info(a.event, fields);
        return;
      case policy::log_level::warn:
        log::warn(a.event, fields);
        return;
      case policy::log_level::error:
        log::error(a.event, fields);
        return;
    }
  }
};

// The metrics first, as the policy counted before it decided to send anything.
void carry_out(self_ptr self, policy::actions todo) {
  publish(self->state);
  for (auto& a : todo) {
    std::visit(shell{self}, a);
  }
}

std::chrono::system_clock::time_point now() { return std::chrono::system_clock::now(); }

}  // namespace

caf::behavior delivery_pool(self_ptr self, route_config route, std::shared_ptr<http::client> client,
                            caf::actor breaker, caf::actor router,
                            std::shared_ptr<route_metrics> metrics, std::uint64_t seed) {
  log_failures(self, "delivery_pool", route.name);
  auto& st = self->state;
  st.policy.emplace(settings_of(std::move(route)), make_random_source(seed));
  st.client = std::move(client);
  st.breaker = std::move(breaker);
  st.router = std::move(router);
  st.metrics = std::move(metrics);
  return {
    [=](deliver_atom, record& r) {
      auto accepted = self->state.policy->on_record(std::move(r));
      self->state.consumers.emplace(accepted.id,
                                    caf::actor_cast<caf::actor>(self->current_sender()));
      carry_out(self, std::move(accepted.todo));
    },
    [=](attempted_atom, const attempt_result& r) {
      carry_out(self, self->state.policy->on_answer(to_answer(r), now()));
    },
    [=](attempt_atom, std::uint64_t id) { carry_out(self, self->state.policy->on_retry_due(id)); },
    [=](expedite_atom, const std::string& topic, std::int32_t partition, std::int64_t offset) {
      carry_out(self, self->state.policy->on_expedite(topic, partition, offset, now()));
    },
    [=](state_atom, const breaker_change& change) {
      carry_out(self, self->state.policy->on_breaker_change(change.to, change.generation));
    },
    [=](blocked_atom, const produce_blocked& b) {
      // The router cannot write a record onward: its consumer holds the record's partition.
      if (auto it = self->state.consumers.find(b.tag); it != self->state.consumers.end()) {
        self->send(it->second, blocked_atom::value, b);
      }
    },
  };
}

}  // namespace courier::actors
