#include "actors/delivery_pool.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "actors/failure_log.hpp"
#include "core/log/json_log.hpp"
#include "core/log/log_line_writer.hpp"
#include "core/retry/header_value.hpp"  // max_header_value
#include "core/retry/retry_headers.hpp"

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<delivery_pool_state>*;
using policy = attempt_policy;

// On the HTTP client's thread: the attempt's answer as the policy takes it (a failure's body
// capped for the retry headers; a 2xx's not copied).
attempt_answer answer_of(delivery_id id, const http::response& r,
                         std::chrono::nanoseconds duration) {
  attempt_answer out;
  out.id = id;
  out.status = r.status;
  out.transport = r.error;
  out.error_message = r.error_message;
  out.retry_after = r.retry_after;
  out.response_headers = r.kept_headers;
  // Only a failure's body travels on (into the retry headers): a 2xx's is not copied.
  if (r.status < 200 || r.status >= 300) {
    out.body = r.body.substr(0, max_header_value);
  }
  out.duration = duration;
  return out;
}

// Adds what the policy counted since the last event to the route's metrics.
void publish(delivery_pool_state& st) {
  const auto& now = st.policy->counts();
  auto& was = st.published;
  auto& m = *st.metrics;
  for (std::size_t c = 0; c < now.size(); ++c) {
    m.deliveries.at_index(c) += now.at_index(c) - was.at_index(c);
  }
  m.endpoint_blocked = st.policy->endpoint_blocked();
  m.endpoint_gone = st.policy->endpoint_gone();
  was = now;
  m.gauges[route_gauge::in_flight] = static_cast<std::int64_t>(st.policy->in_flight());
  m.gauges[route_gauge::concurrency_limit] = st.policy->concurrency_limit();
  m.gauges[route_gauge::rate_limit_waiting] =
    static_cast<std::int64_t>(st.policy->waiting_for_rate());
  m.gauges[route_gauge::attempts_in_flight] = static_cast<std::int64_t>(st.policy->attempts_out());
  m.gauges[route_gauge::credentials_waiting] =
    static_cast<std::int64_t>(st.policy->waiting_for_credentials());
  m.rate_limit = st.policy->rate_limit();
}

// How long a refresh of the route's credentials may take before the 401 counts after all.
constexpr std::chrono::seconds credentials_refresh_timeout{30};

void carry_out(self_ptr self, policy::actions todo);
void append(policy::actions& to, policy::actions more);

// How long a DLQ record of an ordered route waits for its consumer to name its followers.
constexpr std::chrono::seconds followers_timeout{5};

// The record goes to the router with the current event's others (flush_onward).
void produce_onward(self_ptr self, policy::produce_onward a) {
  self->state.at_router.insert(a.id);
  self->state.to_router.push_back(std::move(a.onward));
}

// The event's onward records go to the router in one message; it tells which the broker
// acknowledged (onward_acked_atom), by their tags, in batches of its own.
void flush_onward(self_ptr self) {
  auto& st = self->state;
  if (!st.to_router.empty()) {
    self->send(st.router, route_atom::value, std::move(st.to_router));
    st.to_router.clear();
  }
}

// The router is gone (shutdown): the records it had stay uncommitted.
void router_down(self_ptr self, const caf::error& why) {
  auto& st = self->state;
  policy::actions todo;
  for (const auto id : st.at_router) {
    append(todo, st.policy->on_onward_failed(id, to_string(why)));
    st.consumers.erase(id);
  }
  st.at_router.clear();
  carry_out(self, std::move(todo));
}

// The router's acknowledgements, by tag (the delivery id).
void onward_acked(self_ptr self, const std::vector<std::uint64_t>& tags) {
  auto& st = self->state;
  policy::actions todo;
  for (const auto tag : tags) {
    const delivery_id id{tag};
    if (st.at_router.erase(id) != 0) {
      append(todo, st.policy->on_onward_acked(id));
    }
  }
  carry_out(self, std::move(todo));
}

void watch_router(self_ptr self) {
  if (self->state.router) {
    self->monitor(self->state.router);
  }
  self->set_down_handler([self](caf::down_msg& msg) {
    if (msg.source == self->state.router.address()) {
      router_down(self, msg.reason);
    }
  });
}

struct shell {
  self_ptr self;

  void operator()(policy::request_permit& a) const {
    const auto id = a.id;
    self->request(self->state.breaker, caf::infinite, permit_atom::value)
      .then([s = self, id](const breaker_permit& p) {
        carry_out(s, s->state.policy->on_permit(id, p, now(s)));
      });
  }

  void operator()(policy::post_attempt& a) const {
    const auto started = std::chrono::steady_clock::now();
    self->state.sink->inbox.expect();
    self->state.client->post(
      std::move(a.request), [sink = self->state.sink, id = a.id, started](const http::response& r) {
        const auto took = std::chrono::steady_clock::now() - started;
        sink->metrics->request_seconds.observe(std::chrono::duration<double>(took).count());
        push_answer(sink, answer_of(id, r, took));
      });
  }

  void operator()(policy::schedule_retry& a) const {
    self->delayed_send(self, a.delay, attempt_atom::value, a.id);
  }

  void operator()(policy::breaker_outcome& a) const {
    self->send(self->state.breaker, outcome_atom::value, a.success, a.probe, a.generation, a.gone,
               static_cast<std::int64_t>(a.retry_after.count()), std::move(a.why));
  }

  void operator()(policy::produce_onward& a) const {
    const auto consumer = self->state.consumers.find(a.id);
    if (a.to.what == destination::kind::receipt && consumer != self->state.consumers.end()) {
      batch_for(self->state.answered, consumer->second).push_back(a.onward.from);
    }
    if (!self->state.ordered || a.to.what != destination::kind::dlq || !a.onward.produce.key ||
        consumer == self->state.consumers.end()) {
      produce_onward(self, std::move(a));
      return;
    }
    // Its DLQ record names the later records of its key waiting behind it, as its consumer's
    // key order knows them.
    auto todo = std::make_shared<policy::produce_onward>(std::move(a));
    self->request(consumer->second, followers_timeout, followers_atom::value, todo->onward.from)
      .then(
        [s = self, todo](const std::string& later) {
          if (!later.empty()) {
            todo->onward.produce.headers.emplace_back(followers_header, later);
          }
          produce_onward(s, std::move(*todo));
          flush_onward(s);
        },
        [s = self, todo](const caf::error& err) {
          log::warn(
            "the followers of a dead-lettered record could not be asked; its DLQ "
            "record goes without them",
            {{"route", s->state.route}, {"error", to_string(err)}});
          produce_onward(s, std::move(*todo));
          flush_onward(s);
        });
  }

  void operator()(policy::report_outcome& a) const {
    if (a.outcome.end == delivery_end::delivered && a.record_timestamp_ms > 0) {
      const auto at_ms = now_ms(self);
      // A producer's clock ahead of ours is not a negative latency.
      self->state.metrics->delivery_seconds.observe(
        static_cast<double>(std::max<std::int64_t>(0, at_ms - a.record_timestamp_ms)) / 1000.0);
    }
    auto& st = self->state;
    auto it = st.consumers.find(a.id);
    if (it == st.consumers.end()) {
      return;
    }
    batch_for(st.outbox, it->second).push_back(std::move(a.outcome));
    st.consumers.erase(it);
  }

  void operator()(policy::schedule_token& a) const {
    self->delayed_send(self, a.delay, token_atom::value);
  }

  void operator()(policy::refresh_credentials& a) const {
    const auto id = a.id;
    if (!self->state.keeper) {
      carry_out(self, self->state.policy->on_credentials_refreshed(id, std::nullopt, now(self)));
      return;
    }
    self
      ->request(self->state.keeper, credentials_refresh_timeout, refresh_atom::value,
                std::move(a.stale))
      .then(
        [s = self, id](const std::string& fresh) {
          carry_out(s, s->state.policy->on_credentials_refreshed(id, fresh, now(s)));
        },
        [s = self, id](const caf::error& err) {
          log::warn("fresh credentials could not be had",
                    {{"route", s->state.route}, {"error", to_string(err)}});
          carry_out(s, s->state.policy->on_credentials_refreshed(id, std::nullopt, now(s)));
        });
  }

  void operator()(policy::log_line& a) const {
    std::uint64_t suppressed = 0;
    if (a.per_record) {
      const auto v =
        self->state.sampler.admit(self->state.route, a.event, std::chrono::steady_clock::now());
      if (!v.log) {
        if (v.first_suppressed) {
          // Counted even if no later line of this event comes to carry it.
          self->delayed_send(self, self->state.sampler.window(), log_flush_atom::value);
        }
        return;
      }
      suppressed = v.suppressed;
    }
    log::write(a, suppressed);
  }
};

// The metrics first, as the policy counted before it decided to send anything.
void carry_out(self_ptr self, policy::actions todo) {
  publish(self->state);
  for (auto& a : todo) {
    std::visit(shell{self}, a);
  }
  for (auto& [consumer, answered] : self->state.answered) {
    self->send(consumer, receipt_atom::value, std::move(answered));
  }
  self->state.answered.clear();
  for (auto& [consumer, outcomes] : self->state.outbox) {
    self->send(consumer, outcome_atom::value, std::move(outcomes));
  }
  self->state.outbox.clear();
  flush_onward(self);
}

void append(policy::actions& to, policy::actions more) {
  if (to.empty()) {
    to = std::move(more);
  } else {
    to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
}

// Takes the current sender's records into the policy through `event` (on_record, or
// on_parked_record), remembering whom to report each outcome to.
void take(self_ptr self, record_batch& records,
          policy::accepted (policy::*event)(record, policy::time_point)) {
  const auto from = caf::actor_cast<caf::actor>(self->current_sender());
  const auto at = now(self);
  policy::actions todo;
  for (auto& r : records) {
    auto accepted = (*self->state.policy.*event)(std::move(r), at);
    self->state.consumers.emplace(accepted.id, from);
    append(todo, std::move(accepted.todo));
  }
  carry_out(self, std::move(todo));
}

// An operator's pause or resume of this endpoint (a route with several): answered with whether
// it is paused now.
bool set_operator_paused(self_ptr self, bool paused) {
  self->state.policy->set_operator_paused(paused);
  self->state.metrics->operator_paused = paused;
  return paused;
}

}  // namespace

caf::behavior delivery_pool(self_ptr self, delivery_pool_settings settings,
                            std::shared_ptr<http::poster> client, caf::actor breaker,
                            caf::actor router, std::shared_ptr<route_metrics> metrics,
                            std::uint64_t seed) {
  log_failures(self, "delivery_pool", settings.policy.route);
  auto& st = self->state;
  st.route = settings.policy.route;
  st.ordered = settings.ordered;
  st.time.start(self->clock().now());
  const auto gather_answers = settings.gather_answers;
  st.policy.emplace(std::move(settings.policy), make_random_source(seed));
  st.client = std::move(client);
  st.breaker = std::move(breaker);
  st.router = std::move(router);
  st.metrics = std::move(metrics);
  st.sink = std::make_shared<answer_sink>();
  st.sink->pool = caf::weak_actor_ptr{self->ctrl()};
  st.sink->metrics = st.metrics;
  st.sink->gather = gather_answers;
  watch_router(self);
  return {
    [=](deliver_atom, record_batch& records) { take(self, records, &policy::on_record); },
    [=](dead_letter_atom, record_batch& records) {
      take(self, records, &policy::on_parked_record);
    },
    [=](dead_letter_atom, unknown_endpoint_atom, record_batch& records) {
      take(self, records, &policy::on_unknown_endpoint_record);
    },
    [=](answers_atom) {
      const auto at = now(self);
      policy::actions todo;
      self->state.sink->inbox.take(self->state.answers);
      for (const auto& r : self->state.answers) {
        append(todo, self->state.policy->on_answer(r, at));
      }
      carry_out(self, std::move(todo));
    },
    [=](log_flush_atom) {
      for (const auto& h : self->state.sampler.flush(std::chrono::steady_clock::now())) {
        log::info(
          "log lines suppressed",
          {{"route", h.route}, {"suppressed_event", h.event}, {"suppressed", h.suppressed}});
      }
    },
    [=](token_atom) { carry_out(self, self->state.policy->on_token_due(now(self))); },
    [=](share_atom, std::int32_t assigned, std::int32_t topic_partitions) {
      carry_out(self, self->state.policy->on_quota_share(assigned, topic_partitions, now(self)));
    },
    [=](credentials_atom, std::string& authorization) {
      // From the route's credential keeper, which is then asked for fresh ones after a 401.
      self->state.keeper = caf::actor_cast<caf::actor>(self->current_sender());
      carry_out(self, self->state.policy->on_credentials(std::move(authorization), now(self)));
    },
    [=](attempt_atom, delivery_id id) {
      carry_out(self, self->state.policy->on_retry_due(id, now(self)));
    },
    [=](expedite_atom, const record_position& at) {
      carry_out(self, self->state.policy->on_expedite(at, now(self)));
    },
    [=](state_atom, const breaker_change& change) {
      carry_out(self,
                self->state.policy->on_breaker_change(change.to, change.generation, now(self)));
    },
    [=](pause_atom, pause_reason) { return set_operator_paused(self, true); },
    [=](resume_atom, pause_reason) { return set_operator_paused(self, false); },
    [=](onward_acked_atom, const std::vector<std::uint64_t>& tags) { onward_acked(self, tags); },
    [=](blocked_atom, const onward_blocked& b) {
      // The router cannot write a record onward: its consumer holds the record's partition.
      if (auto it = self->state.consumers.find(delivery_id{b.tag});
          it != self->state.consumers.end()) {
        self->send(it->second, blocked_atom::value, b);
      }
    },
  };
}

}  // namespace courier::actors
