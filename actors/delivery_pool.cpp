#include "actors/delivery_pool.hpp"

#include "actors/delivery_request.hpp"
#include "actors/messages.hpp"
#include "core/idempotency_key.hpp"
#include "core/json_log.hpp"
#include "core/retry_after.hpp"
#include "core/status_classifier.hpp"

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
  st.client->post(std::move(req), [handle, id](http::response resp) {
    caf::anon_send(handle, attempted_atom::value, to_attempt_result(id, resp));
  });
}

// Every attempt needs the breaker's permit; while it is Open the record waits, spending nothing.
// The Half-Open probe holds its permit for its whole attempt sequence: one delivery is one
// breaker event, however many attempts it took.
void try_attempt(self_ptr self, std::uint64_t id) {
  auto& st = self->state;
  if (auto it = st.pending.find(id); it != st.pending.end() && it->second.probe) {
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
      send_attempt(self, id, permit.probe);
    });
}

void finish(self_ptr self, std::uint64_t id, outcome_kind kind, int status,
            std::string error_class) {
  auto& st = self->state;
  auto it = st.pending.find(id);
  auto& p = it->second;
  delivery_outcome out{p.rec.topic, p.rec.partition, p.rec.offset, kind,
                       p.total_attempts, status, std::move(error_class)};
  self->send(p.reply_to, outcome_atom::value, std::move(out));
  st.pending.erase(it);
  st.metrics->in_flight = static_cast<std::int64_t>(st.pending.size());
}

void on_retriable(self_ptr self, pending_delivery& p, std::uint64_t id, const attempt_result& r,
                  const std::string& error_class) {
  auto& st = self->state;
  if (st.backoff->may_retry(p.attempts)) {
    std::optional<std::chrono::milliseconds> retry_after;
    if (r.has_retry_after) {
      retry_after = parse_retry_after(r.retry_after, std::chrono::system_clock::now());
    }
    const auto delay = st.backoff->delay_after(p.attempts, retry_after);
    ++st.metrics->retries;
    log::info("delivery retry scheduled", {{"route", st.route.name},
                                           {"idempotency_key", p.idempotency_key},
                                           {"attempt", p.attempts},
                                           {"error_class", error_class},
                                           {"status", r.status},
                                           {"delay_ms", delay.count()}});
    self->delayed_send(self, delay, attempt_atom::value, id);
    return;
  }
  // One delivery is one breaker event, however many attempts it took.
  self->send(st.breaker, outcome_atom::value, false, p.probe);
  p.probe = false;
  ++st.metrics->exhausted;
  // Until retry tiers exist the record is never dropped: it starts a new sequence later.
  log::warn("delivery attempts exhausted, retrying after cool-down",
            {{"route", st.route.name},
             {"idempotency_key", p.idempotency_key},
             {"attempts", p.attempts},
             {"error_class", error_class},
             {"cool_down_ms", st.route.retry.cool_down.count()}});
  p.attempts = 0;
  self->delayed_send(self, st.route.retry.cool_down, attempt_atom::value, id);
}

void on_attempted(self_ptr self, const attempt_result& r) {
  auto& st = self->state;
  auto it = st.pending.find(r.delivery_id);
  if (it == st.pending.end()) {
    return;
  }
  auto& p = it->second;
  const auto transport = static_cast<transport_error>(r.transport);
  const auto cls =
    transport == transport_error::none ? classify_status(r.status) : classify_transport(transport);
  switch (cls) {
    case delivery_class::delivered:
      self->send(st.breaker, outcome_atom::value, true, p.probe);
      ++st.metrics->delivered;
      finish(self, r.delivery_id, outcome_kind::delivered, r.status, {});
      return;
    case delivery_class::permanent: {
      // The receiver answered: it is up, so this counts as a success for the breaker.
      self->send(st.breaker, outcome_atom::value, true, p.probe);
      ++st.metrics->permanent;
      auto error_class = courier::error_class(r.status, transport);
      log::error("record rejected permanently; its partition's commit point is held",
                 {{"route", st.route.name},
                  {"idempotency_key", p.idempotency_key},
                  {"topic", p.rec.topic},
                  {"partition", p.rec.partition},
                  {"offset", p.rec.offset},
                  {"status", r.status},
                  {"error_class", error_class}});
      finish(self, r.delivery_id, outcome_kind::permanent, r.status, std::move(error_class));
      return;
    }
    case delivery_class::retriable:
      on_retriable(self, p, r.delivery_id, r, courier::error_class(r.status, transport));
      return;
  }
}

}  // namespace

caf::behavior delivery_pool(self_ptr self, route_config route,
                            std::shared_ptr<http::client> client, caf::actor breaker,
                            std::shared_ptr<route_metrics> metrics, std::uint64_t seed) {
  auto& st = self->state;
  st.signer.emplace(route.hmac_secret);
  st.backoff.emplace(backoff_policy{route.retry.initial, route.retry.multiplier, route.retry.max,
                                    route.retry.max_attempts, route.retry.max_retry_after},
                     make_random_source(seed));
  st.route = std::move(route);
  st.client = std::move(client);
  st.breaker = std::move(breaker);
  st.metrics = std::move(metrics);
  return {
    [=](deliver_atom, record& r) {
      auto& s = self->state;
      const auto id = s.next_id++;
      auto key = idempotency_key_for(r);
      auto reply_to = caf::actor_cast<caf::actor>(self->current_sender());
      s.pending.emplace(id, pending_delivery{std::move(r), std::move(key), std::move(reply_to)});
      s.metrics->in_flight = static_cast<std::int64_t>(s.pending.size());
      try_attempt(self, id);
    },
    [=](attempted_atom, const attempt_result& r) { on_attempted(self, r); },
    [=](attempt_atom, std::uint64_t id) { try_attempt(self, id); },
    [=](state_atom, const breaker_change& change) {
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
