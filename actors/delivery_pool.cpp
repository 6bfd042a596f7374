#include "actors/delivery_pool.hpp"

#include "actors/failure_log.hpp"
#include "core/delivery/delivery_request.hpp"
#include "actors/messages.hpp"
#include "core/model/idempotency_key.hpp"
#include "core/log/json_log.hpp"
#include "core/delivery/retry_after.hpp"
#include "core/retry/retry_headers.hpp"
#include "core/retry/retry_tiers.hpp"
#include "core/delivery/status_classifier.hpp"

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<delivery_pool_state>*;

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

void send_attempt(self_ptr self, std::uint64_t id, bool probe) {
  auto& st = self->state;
  auto it = st.pending.find(id);
  if (it == st.pending.end()) {
    return;
  }
  auto& p = it->second;
  if (probe && !p.probe) {
    p.attempts = 0;  // the probe is a whole delivery, whatever it spent before the breaker opened
  }
  p.probe = probe;
  ++p.attempts;
  ++p.total_attempts;
  ++st.metrics->attempts;
  auto req = make_delivery_request(p.rec, p.idempotency_key, *st.signer, st.route.content_type);
  auto handle = caf::actor_cast<caf::actor>(self);
  st.client->post(std::move(req), [handle, id](const http::response& resp) {
    caf::anon_send(handle, attempted_atom::value, to_attempt_result(id, resp));
  });
}

// Every attempt needs the breaker's permit; while it is Open the record waits, spending nothing.
// The Half-Open probe holds its permit for its whole attempt sequence: one delivery is one
// breaker event, however many attempts it took.
void try_attempt(self_ptr self, std::uint64_t id) {
  auto& st = self->state;
  auto it = st.pending.find(id);
  if (it == st.pending.end() || it->second.moving_on) {
    return;  // done, or moved on to a tier while it waited for this attempt
  }
  it->second.in_backoff = false;
  if (it->second.probe) {
    send_attempt(self, id, /*probe=*/true);
    return;
  }
  self->request(st.breaker, caf::infinite, permit_atom::value)
    .then([=](const breaker_permit& permit) {
      auto& s = self->state;
      if (s.pending.count(id) == 0) {
        return;
      }
      if (!permit.granted) {
        s.parked.push_back(id);
        return;
      }
      s.pending.at(id).breaker_generation = permit.generation;
      send_attempt(self, id, permit.probe);
    });
}

void finish(self_ptr self, std::uint64_t id, outcome_kind kind, int status,
            std::string error_class) {
  auto& st = self->state;
  auto it = st.pending.find(id);
  auto& p = it->second;
  delivery_outcome out{p.rec.topic,      p.rec.partition, p.rec.offset,          kind,
                       p.total_attempts, status,          std::move(error_class)};
  self->send(p.reply_to, outcome_atom::value, std::move(out));
  st.pending.erase(it);
  st.metrics->in_flight = static_cast<std::int64_t>(st.pending.size());
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// The tier a record was fetched from, or -1 for the route's source topic.
int tier_of(const delivery_pool_state& st, const std::string& topic) {
  for (std::size_t i = 0; i < st.route.retry_tiers.size(); ++i) {
    if (topic == tier_topic(st.route.topic, st.route.retry_tiers[i])) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// The receiver's Retry-After, when it sent one that parses.
std::optional<std::chrono::milliseconds> retry_after_of(const attempt_result& r) {
  if (!r.has_retry_after) {
    return std::nullopt;
  }
  return parse_retry_after(r.retry_after, std::chrono::system_clock::now());
}

std::string failure_message(int status, const attempt_result& r) {
  if (!r.error_message.empty()) {
    return r.error_message;
  }
  return "the receiver answered " + std::to_string(status);
}

// Sends a record that is done with its in-process attempts to the next tier or the DLQ; the
// outcome goes to its consumer only once the broker acknowledged it.
void route_onward(self_ptr self, std::uint64_t id, bool permanent, const std::string& error_class,
                  const attempt_result& r) {
  auto& st = self->state;
  auto& p = st.pending.at(id);
  p.moving_on = true;
  const auto dest = next_destination(tier_of(st, p.rec.topic), permanent, st.route.retry_tiers,
                                     st.route.topic, st.dlq_topic);
  const auto now = now_ms();
  failure_info f;
  f.error_class = error_class;
  f.error_message = failure_message(r.status, r);
  f.status = r.status;
  f.response_excerpt = r.body;
  f.trace = p.trace;
  f.attempts = p.attempts;
  f.failed_at_ms = now;
  dispatch_request req;
  req.topic = dest.topic;
  req.partition = p.rec.partition;
  req.has_key = p.rec.key.has_value();
  req.key = p.rec.key.value_or(std::string{});
  req.value = p.rec.value;
  req.headers = retry_headers(p.rec, st.route.name, dest, f, now);
  const bool to_tier = dest.what == destination::kind::tier;
  log::warn(to_tier ? "record moved to a retry tier" : "record dead-lettered",
            {{"route", st.route.name},
             {"idempotency_key", p.idempotency_key},
             {"from", p.rec.topic},
             {"to", dest.topic},
             {"error_class", error_class},
             {"status", r.status},
             {"attempts", p.attempts}});
  const int status = r.status;
  self->request(st.router, caf::infinite, route_atom::value, std::move(req))
    .then(
      [=](bool) {
        auto& s = self->state;
        if (to_tier) {
          ++s.metrics->retried_to_tier;
        } else {
          ++s.metrics->dead_lettered;
        }
        finish(self, id, to_tier ? outcome_kind::retried : outcome_kind::dead_lettered, status,
               error_class);
      },
      [=](const caf::error& err) {
        // Only when the router is gone (shutdown): the record stays uncommitted.
        log::error("a retry/DLQ record was not acknowledged; its offset stays uncommitted",
                   {{"route", self->state.route.name}, {"error", to_string(err)}});
        self->state.pending.erase(id);
      });
}

// The record's attempt sequence ends without a delivery: one failed breaker event, and the
// record moves to the next tier (or the DLQ after the last one).
void give_up(self_ptr self, pending_delivery& p, std::uint64_t id, const attempt_result& r,
             const std::string& error_class) {
  auto& st = self->state;
  self->send(st.breaker, outcome_atom::value, false, p.probe, p.breaker_generation);
  p.probe = false;
  route_onward(self, id, /*permanent=*/false, error_class, r);
}

void on_retriable(self_ptr self, pending_delivery& p, std::uint64_t id, const attempt_result& r,
                  const std::string& error_class) {
  auto& st = self->state;
  if (p.expedited) {
    ++st.metrics->head_of_line_moves;
    give_up(self, p, id, r, error_class);
    return;
  }
  if (st.backoff->may_retry(p.attempts)) {
    const auto delay = st.backoff->delay_after(p.attempts, retry_after_of(r));
    ++st.metrics->retries;
    log::info("delivery retry scheduled", {{"route", st.route.name},
                                           {"idempotency_key", p.idempotency_key},
                                           {"attempt", p.attempts},
                                           {"error_class", error_class},
                                           {"status", r.status},
                                           {"delay_ms", delay.count()}});
    p.in_backoff = true;
    p.last_error_class = error_class;
    p.last_result = r;
    self->delayed_send(self, delay, attempt_atom::value, id);
    return;
  }
  // One delivery is one breaker event, however many attempts it took.
  ++st.metrics->exhausted;
  give_up(self, p, id, r, error_class);
}

// The consumer's head-of-line bound: a record waiting in its backoff moves to the next tier
// now; one in an attempt moves at its next retriable failure. A record parked by the breaker
// or held for an endpoint failure stays (they wait for the endpoint, not for their data).
void expedite(self_ptr self, const std::string& topic, std::int32_t partition,
              std::int64_t offset) {
  auto& st = self->state;
  for (auto& [id, p] : st.pending) {
    if (p.rec.offset != offset || p.rec.partition != partition || p.rec.topic != topic) {
      continue;
    }
    if (p.moving_on || p.expedited) {
      return;
    }
    p.expedited = true;
    // While the breaker is Open nothing moves to a tier (DESIGN.md section 2): the record moves
    // at its next retriable failure, once the breaker let it try again.
    if (p.in_backoff && !st.breaker_open) {
      ++st.metrics->head_of_line_moves;
      log::info("head of line moved to a retry tier", {{"route", st.route.name},
                                                       {"idempotency_key", p.idempotency_key},
                                                       {"attempts", p.attempts}});
      give_up(self, p, id, p.last_result, p.last_error_class);
    }
    return;
  }
}

// The endpoint refused the record for a reason that is not about the record: a failed delivery
// for the breaker, and the record tries again after a backoff (asking the breaker's permit, so
// it waits while the breaker is Open). The attempt does not count toward the record's attempts.
void hold(self_ptr self, pending_delivery& p, std::uint64_t id, const attempt_result& r,
          const std::string& error_class) {
  auto& st = self->state;
  self->send(st.breaker, outcome_atom::value, false, p.probe, p.breaker_generation);
  p.probe = false;
  --p.attempts;
  ++p.held_attempts;
  ++st.metrics->endpoint_failures;
  const auto delay = st.backoff->delay_after(p.held_attempts, retry_after_of(r));
  log::info("delivery held: the endpoint refused it", {{"route", st.route.name},
                                                       {"idempotency_key", p.idempotency_key},
                                                       {"error_class", error_class},
                                                       {"status", r.status},
                                                       {"held_attempts", p.held_attempts},
                                                       {"delay_ms", delay.count()}});
  self->delayed_send(self, delay, attempt_atom::value, id);
}

void on_attempted(self_ptr self, const attempt_result& r) {
  auto& st = self->state;
  auto it = st.pending.find(r.delivery_id);
  if (it == st.pending.end()) {
    return;
  }
  auto& p = it->second;
  const auto transport = static_cast<transport_error>(r.transport);
  const auto verdict = st.judge->judge(r.status, transport, p.probe);
  if (verdict != answer_verdict::delivered) {
    p.trace.push_back(format_trace_entry(
      now_ms(), courier::error_class(r.status, transport) +
                  (r.error_message.empty() ? std::string{} : ": " + r.error_message)));
  }
  switch (verdict) {
    case answer_verdict::delivered:
      self->send(st.breaker, outcome_atom::value, true, p.probe, p.breaker_generation);
      ++st.metrics->delivered;
      finish(self, r.delivery_id, outcome_kind::delivered, r.status, {});
      return;
    case answer_verdict::endpoint_failure:
      hold(self, p, r.delivery_id, r, courier::error_class(r.status, transport));
      return;
    case answer_verdict::dead_letter:
      // The receiver answered: it is up, so this counts as a success for the breaker.
      self->send(st.breaker, outcome_atom::value, true, p.probe, p.breaker_generation);
      p.probe = false;
      ++st.metrics->permanent;
      route_onward(self, r.delivery_id, /*permanent=*/true,
                   courier::error_class(r.status, transport), r);
      return;
    case answer_verdict::retry:
      on_retriable(self, p, r.delivery_id, r, courier::error_class(r.status, transport));
      return;
  }
}

}  // namespace

caf::behavior delivery_pool(self_ptr self, route_config route, std::shared_ptr<http::client> client,
                            caf::actor breaker, caf::actor router,
                            std::shared_ptr<route_metrics> metrics, std::uint64_t seed) {
  log_failures(self, "delivery_pool", route.name);
  auto& st = self->state;
  st.signer.emplace(route.hmac_secret);
  st.backoff.emplace(backoff_policy{route.retry.initial, route.retry.multiplier, route.retry.max,
                                    route.retry.max_attempts, route.retry.max_retry_after},
                     make_random_source(seed));
  st.judge.emplace(answer_judge_settings{route.breaker.endpoint_failure_statuses,
                                         route.breaker.trip_on_permanent_run});
  st.route = std::move(route);
  st.client = std::move(client);
  st.breaker = std::move(breaker);
  st.router = std::move(router);
  st.dlq_topic =
    st.route.dlq_topic.empty() ? default_dlq_topic(st.route.topic) : st.route.dlq_topic;
  st.metrics = std::move(metrics);
  return {
    [=](deliver_atom, record& r) {
      auto& s = self->state;
      const auto id = s.next_id++;
      auto key = idempotency_key_for(r);
      auto reply_to = caf::actor_cast<caf::actor>(self->current_sender());
      pending_delivery p;
      p.rec = std::move(r);
      p.idempotency_key = std::move(key);
      p.reply_to = std::move(reply_to);
      s.pending.emplace(id, std::move(p));
      s.metrics->in_flight = static_cast<std::int64_t>(s.pending.size());
      try_attempt(self, id);
    },
    [=](attempted_atom, const attempt_result& r) { on_attempted(self, r); },
    [=](attempt_atom, std::uint64_t id) { try_attempt(self, id); },
    [=](expedite_atom, const std::string& topic, std::int32_t partition, std::int64_t offset) {
      expedite(self, topic, partition, offset);
    },
    [=](state_atom, const breaker_change& change) {
      self->state.breaker_open = change.to == breaker_state::open;
      if (change.to == breaker_state::open) {
        return;
      }
      auto waiting = std::move(self->state.parked);
      self->state.parked.clear();
      for (auto id : waiting) {
        try_attempt(self, id);
      }
    },
  };
}

}  // namespace courier::actors
