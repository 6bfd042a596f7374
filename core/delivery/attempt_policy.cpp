#include "core/delivery/attempt_policy.hpp"

#include <algorithm>
#include <cstdint>

#include "core/delivery/onward_move.hpp"
#include "core/delivery/retry_after.hpp"
#include "core/delivery/status_classifier.hpp"
#include "core/model/error_classes.hpp"
#include "core/model/idempotency_key.hpp"
#include "core/retry/error_trace.hpp"

namespace courier {
namespace {

std::int64_t to_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// The receiver's Retry-After, when it sent one that parses.
std::optional<std::chrono::milliseconds> retry_after_of(const attempt_answer& a,
                                                        std::chrono::system_clock::time_point now) {
  if (!a.retry_after) {
    return std::nullopt;
  }
  return parse_retry_after(*a.retry_after, now);
}

// The route's fixed secrets: what a partner echoing the request could send back.
secret_redactor redactor_of(const attempt_policy_settings& s) {
  std::vector<std::string> secrets = s.secrets;
  secrets.push_back(s.signing.hmac_secret);
  secrets.insert(secrets.end(), s.signing.standard_webhooks_secrets.begin(),
                 s.signing.standard_webhooks_secrets.end());
  for (const auto& h : s.headers.fixed) {
    secrets.push_back(h.second);
  }
  return secret_redactor{std::move(secrets)};
}

}  // namespace

attempt_policy::attempt_policy(attempt_policy_settings settings,
                               full_jitter_backoff::uniform_source uniform)
    : settings_(std::move(settings)),
      signing_(settings_.signing),
      redactor_(redactor_of(settings_)),
      backoff_(settings_.backoff, std::move(uniform)),
      judge_(settings_.judge),
      gate_(attempt_gate_settings{settings_.authenticated, settings_.rate_limit, settings_.adaptive,
                                  settings_.retry_budget}) {}

// One breaker event per delivery; the gate knows which outcomes the breaker need not hear.
void attempt_policy::tell_breaker(bool success, const delivery& d, actions& out, bool gone,
                                  std::chrono::milliseconds retry_after, breaker_failure why) {
  if (!gate_.tells_breaker(success, d.ticket)) {
    return;
  }
  out.emplace_back(breaker_outcome{success, d.ticket.probe, d.ticket.breaker_generation, gone,
                                   retry_after, std::move(why)});
}

// A failed delivery for the breaker, with what the receiver asked for and why it failed.
void attempt_policy::tell_breaker_failure(const delivery& d, const attempt_answer& a,
                                          const std::string& error_class, time_point now,
                                          actions& out, bool gone) {
  tell_breaker(false, d, out, gone, retry_after_of(a, now).value_or(std::chrono::milliseconds{0}),
               breaker_failure{error_class, failure_message(a)});
}

// -- events -----------------------------------------------------------------------------------

attempt_policy::accepted attempt_policy::on_record(record r, time_point now) {
  accepted out;
  const bool busy = settings_.max_pending > 0 && pending_.size() >= settings_.max_pending;
  auto [id, d] = pending_.take(std::move(r));
  out.id = id;
  if (busy && parks_in_tiers()) {
    park(id, d,
         {"endpoint_busy", "not attempted: the endpoint has its share of the route's records"}, now,
         out.todo);
    return out;
  }
  try_attempt(out.id, now, out.todo);
  return out;
}

attempt_policy::actions attempt_policy::on_permit(delivery_id id, const breaker_permit& permit,
                                                  time_point now) {
  actions out;
  auto* d = pending_.find(id);
  if (d == nullptr) {
    return out;
  }
  attempt_gate::take_permit(d->ticket, permit);
  attempt(id, *d, now, out);
  return out;
}

attempt_policy::actions attempt_policy::on_answer(const attempt_answer& a, time_point now) {
  const auto* d = pending_.find(a.id);
  if (d == nullptr) {
    return {};
  }
  gate_.on_answer(a, now);
  // A partner (or its gateway) may echo the request: its text is kept (retry headers, trace,
  // logs, receipts) only without the route's secrets and the credential this attempt carried.
  const auto clean = redacted(a, redactor_, authorization_secrets(d->authorization_sent));
  auto out = answer(clean ? *clean : a, now);
  // The answer freed a slot: the oldest waiting for one asks again (a probe with its permit in
  // hand goes; any other asks the breaker, so that while it is Open it is parked).
  while (const auto next = gate_.next_for_slot()) {
    try_attempt(*next, now, out);
  }
  return out;
}

attempt_policy::actions attempt_policy::answer(const attempt_answer& a, time_point now) {
  actions out;
  auto* found = pending_.find(a.id);
  if (found == nullptr) {
    return out;
  }
  ++counters_[answer_class_counter(a.status)];
  const auto id = a.id;
  auto& d = *found;
  const auto now_ms = to_ms(now);
  const auto verdict = judge_.judge(a.status, a.transport, d.ticket.probe);
  const auto klass = error_class(a.status, a.transport);
  flag_endpoint(a, verdict, out);
  if (verdict != answer_verdict::delivered) {
    d.trace.push_back(format_trace_entry(
        now_ms, klass + (a.error_message.empty() ? std::string{} : ": " + a.error_message)));
  }
  if (settings_.authenticated && a.status == 401 && refresh_on_401(id, d, now, out)) {
    return out;
  }
  switch (verdict) {
    case answer_verdict::delivered:
      tell_breaker(true, d, out);
      if (!settings_.topics.receipts.empty()) {
        write_receipt(id, d, a, now, out);
        return out;
      }
      ++counters_[delivery_counter::delivered];
      finish(id, delivery_end::delivered, a.status, {}, out);
      return out;
    case answer_verdict::endpoint_failure:
      hold(id, d, a, klass, now, out);
      return out;
    case answer_verdict::endpoint_gone:
      hold(id, d, a, klass, now, out, /*gone=*/true);
      return out;
    case answer_verdict::dead_letter:
      // The receiver answered: it is up, so this counts as a success for the breaker.
      tell_breaker(true, d, out);
      d.ticket.probe = false;
      ++counters_[delivery_counter::permanent];
      route_onward(id, d, /*permanent=*/true, klass, a, now, out);
      return out;
    case answer_verdict::retry:
      on_retriable(id, d, a, klass, now, out);
      return out;
  }
  return out;
}

attempt_policy::actions attempt_policy::on_retry_due(delivery_id id, time_point now) {
  actions out;
  try_attempt(id, now, out);
  return out;
}

attempt_policy::actions attempt_policy::on_expedite(const record_position& position,
                                                    time_point now) {
  actions out;
  const auto id = pending_.id_at(position);
  if (!id) {
    return out;
  }
  auto& d = *pending_.find(*id);
  if (d.moving_on() || d.expedited) {
    return out;
  }
  d.expedited = true;
  // While the breaker is Open nothing moves to a tier (DESIGN.md section 2): the record moves
  // at its next retriable failure, once the breaker let it try again.
  if (d.in_backoff() && !gate_.breaker_open()) {
    ++counters_[delivery_counter::head_of_line_moves];
    out.emplace_back(log_line{log_level::info,
                              "head of line moved to a retry tier",
                              {{"route", settings_.route},
                               {"idempotency_key", d.idempotency_key},
                               {"attempts", std::int64_t{d.attempts}}},
                              /*per_record=*/true});
    give_up(*id, d, d.last_answer, d.last_error_class, now, out);
  }
  return out;
}

attempt_policy::actions attempt_policy::on_token_due(time_point now) {
  actions out;
  gate_.on_token_timer();
  const auto waiting = [this](delivery_id id) -> attempt_ticket* {
    auto* d = pending_.find(id);
    return d == nullptr || d->moving_on() ? nullptr : &d->ticket;
  };
  while (const auto next = gate_.next_for_token(now, waiting)) {
    counters_[delivery_counter::rate_limited_us] +=
        static_cast<std::uint64_t>(next->waited.count());
    try_attempt(next->id, now, out);
  }
  if (const auto delay = gate_.token_timer(now)) {
    out.emplace_back(schedule_token{*delay});
  }
  return out;
}

attempt_policy::actions attempt_policy::on_quota_share(int assigned, int topic_partitions,
                                                       time_point now) {
  gate_.set_share(assigned, topic_partitions, now);
  return {};
}

attempt_policy::actions attempt_policy::on_credentials(std::string authorization, time_point now) {
  actions out;
  for (const auto id : gate_.on_credentials(std::move(authorization))) {
    try_attempt(id, now, out);
  }
  return out;
}

attempt_policy::actions attempt_policy::on_credentials_refreshed(
    delivery_id id, const std::optional<std::string>& fresh, time_point now) {
  actions out;
  if (fresh) {
    out = on_credentials(*fresh, now);
  }
  auto* found = pending_.find(id);
  if (found == nullptr || found->moving_on()) {
    return out;
  }
  auto& d = *found;
  if (fresh) {
    try_attempt(id, now, out);
    return out;
  }
  attempt_answer a;
  a.id = id;
  a.status = 401;
  a.error_message = "the partner answered 401 and fresh credentials could not be had";
  ++d.attempts;  // the 401 counts after all: hold() takes it back as an endpoint failure
  hold(id, d, a, "http_401", now, out);
  return out;
}

attempt_policy::actions attempt_policy::on_onward_acked(delivery_id id) {
  actions out;
  auto* found = pending_.find(id);
  if (found == nullptr) {
    return out;
  }
  auto& d = *found;
  switch (d.phase) {
    case delivery_phase::writing_receipt:
      ++counters_[delivery_counter::delivered];
      finish(id, delivery_end::delivered, d.final_status, {}, out);
      return out;
    case delivery_phase::moving_to_tier:
      ++counters_[delivery_counter::retried];
      finish(id, delivery_end::retried, d.final_status, std::move(d.final_error_class), out);
      return out;
    case delivery_phase::dead_lettering:
      ++counters_[delivery_counter::dead_lettered];
      finish(id, delivery_end::dead_lettered, d.final_status, std::move(d.final_error_class), out);
      return out;
    case delivery_phase::arrived:
    case delivery_phase::asking_breaker:
    case delivery_phase::waiting_breaker:
    case delivery_phase::waiting_credentials:
    case delivery_phase::waiting_token:
    case delivery_phase::waiting_slot:
    case delivery_phase::in_flight:
    case delivery_phase::refreshing_credentials:
    case delivery_phase::backing_off:
    case delivery_phase::waiting_budget:
    case delivery_phase::held:
      return out;  // nothing of it is on its way to the broker
  }
  return out;
}

attempt_policy::actions attempt_policy::on_onward_failed(delivery_id id, const std::string& why) {
  actions out;
  if (pending_.find(id) == nullptr) {
    return out;
  }
  out.emplace_back(log_line{log_level::error,
                            "a retry/DLQ record was not acknowledged; its offset stays uncommitted",
                            {{"route", settings_.route}, {"error", why}}});
  pending_.forget(id);
  return out;
}

// -- the attempt cycle ------------------------------------------------------------------------

// The SSRF guard's refusal and 410 Gone are about the route, not the record: flagged once when
// they start (the held records log their own lines).
void attempt_policy::flag_endpoint(const attempt_answer& a, answer_verdict verdict, actions& out) {
  if (a.transport == transport_error::ssrf_blocked) {
    ++counters_[delivery_counter::ssrf_blocked];
  }
  if (auto line = flags_.on_blocked(settings_.route, a)) {
    out.emplace_back(std::move(*line));
  }
  if (verdict == answer_verdict::endpoint_gone) {
    ++counters_[delivery_counter::gone];
  }
  if (auto line = flags_.on_gone(settings_.route, a, verdict)) {
    out.emplace_back(std::move(*line));
  }
}

// A record's next attempt, unless it is done or moved on to a tier while it waited for it.
void attempt_policy::try_attempt(delivery_id id, time_point now, actions& out) {
  auto* d = pending_.find(id);
  if (d != nullptr && !d->moving_on()) {
    attempt(id, *d, now, out);
  }
}

// Any attempt but a record's first from its source topic is a retry: a retry tier's record was
// tried before.
attempt_kind attempt_policy::kind_of(const delivery& d) const {
  if (d.total_attempts > 0) {
    return attempt_kind::retry;
  }
  return settings_.topics.tier_index(d.rec.topic) >= 0 ? attempt_kind::tier_first
                                                       : attempt_kind::first;
}

// The gate's one question for the attempt, and what its answer means here.
void attempt_policy::attempt(delivery_id id, delivery& d, time_point now, actions& out) {
  if (operator_paused_ && parks_in_tiers()) {
    park(
        id, d,
        {error_class_name::endpoint_paused, "not attempted: the endpoint is paused by an operator"},
        now, out);
    return;
  }
  const bool refused_before = d.ticket.budget == budget_pass::ask;
  const auto admitted = gate_.admit(id, d.ticket, kind_of(d), now);
  switch (admitted.wait) {
    case waiting_for::nothing:
      post(id, d, admitted.probe_begins, now, out);
      return;
    case waiting_for::permit:
      d.phase = delivery_phase::asking_breaker;
      out.emplace_back(request_permit{id});
      return;
    case waiting_for::breaker:
      d.phase = delivery_phase::waiting_breaker;  // spending nothing while it is Open
      if (parks_in_tiers()) {
        gate_.withdraw_parked(id);
        park(id, d,
             {error_class_name::breaker_open, "not attempted: the endpoint's breaker is open"}, now,
             out);
      }
      return;
    case waiting_for::credentials:
      d.phase = delivery_phase::waiting_credentials;
      return;
    case waiting_for::retry_budget: {
      attempt_answer none;
      none.id = id;
      none.error_message = "the route's retry budget is spent";
      refuse_retry(id, d, none,
                   refused_before ? d.last_error_class : error_class_name::retry_budget, now, out);
      return;
    }
    case waiting_for::token:
      d.phase = delivery_phase::waiting_token;
      ++counters_[delivery_counter::rate_limited];
      if (admitted.token_timer) {
        out.emplace_back(schedule_token{*admitted.token_timer});
      }
      return;
    case waiting_for::slot:
      d.phase = delivery_phase::waiting_slot;
      return;
  }
}

// The attempt goes: signed afresh with its own time, with the route's headers and credentials.
void attempt_policy::post(delivery_id id, delivery& d, bool probe_begins, time_point now,
                          actions& out) {
  d.phase = delivery_phase::in_flight;
  if (probe_begins) {
    d.attempts = 0;  // the probe is a whole delivery, whatever it spent before the breaker opened
  }
  if (d.first_attempt_ms == 0) {
    d.first_attempt_ms = to_ms(now);
  }
  ++d.attempts;
  ++d.total_attempts;
  ++counters_[delivery_counter::attempts];
  d.credentials_generation = gate_.credentials_generation();
  d.authorization_sent = gate_.authorization();
  const auto attempt_time =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  auto request = make_delivery_request(d.rec, d.idempotency_key, signing_, settings_.content_type,
                                       attempt_time);
  add_route_headers(request, d.rec, settings_.headers, gate_.authorization());
  out.emplace_back(post_attempt{id, std::move(request)});
}

// A retry over the budget: the record moves on to its next retry tier, from the last tier into
// the last tier again, never to the DLQ for this reason; on a route without tiers it waits its
// backoff and asks the budget again.
void attempt_policy::refuse_retry(delivery_id id, delivery& d, const attempt_answer& a,
                                  const std::string& error_class, time_point now, actions& out) {
  ++counters_[delivery_counter::retry_budget_refused];
  if (settings_.topics.tiers.empty()) {
    const auto delay = backoff_.delay_after(std::max(1, d.attempts), retry_after_of(a, now));
    d.phase = delivery_phase::waiting_budget;
    out.emplace_back(schedule_retry{id, delay});
    return;
  }
  out.emplace_back(log_line{log_level::info,
                            "retry over the retry budget: the record moves on to its retry tier",
                            {{"route", settings_.route},
                             {"idempotency_key", d.idempotency_key},
                             {"error_class", error_class}},
                            /*per_record=*/true});
  route_onward(id, d, /*permanent=*/false, error_class, a, now, out, tier_step::stay_in_tiers);
}

// A 401 to an authenticated route: when the credentials changed since the attempt went, it tries
// again with the new ones; otherwise, once per record, fresh credentials are asked for. Neither
// counts as one of the record's attempts. False: the 401 is judged as any answer (an endpoint
// failure).
bool attempt_policy::refresh_on_401(delivery_id id, delivery& d, time_point now, actions& out) {
  if (d.credentials_generation != gate_.credentials_generation()) {
    --d.attempts;
    try_attempt(id, now, out);
    return true;
  }
  if (d.credentials_refreshed) {
    return false;
  }
  d.credentials_refreshed = true;
  --d.attempts;
  ++counters_[delivery_counter::credential_refreshes];
  d.phase = delivery_phase::refreshing_credentials;
  out.emplace_back(log_line{log_level::info,
                            "the partner answered 401: asking for fresh credentials",
                            {{"route", settings_.route}, {"idempotency_key", d.idempotency_key}},
                            /*per_record=*/true});
  out.emplace_back(refresh_credentials{id, gate_.authorization()});
  return true;
}

void attempt_policy::on_retriable(delivery_id id, delivery& d, const attempt_answer& a,
                                  const std::string& error_class, time_point now, actions& out) {
  if (d.expedited) {
    ++counters_[delivery_counter::head_of_line_moves];
    give_up(id, d, a, error_class, now, out);
    return;
  }
  // Asked now, not when its backoff ran out: every record failing within one backoff would
  // otherwise be granted the same room.
  if (backoff_.may_retry(d.attempts) && !gate_.grant_retry(d.ticket, now)) {
    // Courier's own refusal, not a verdict on the endpoint: the breaker hears of it only when it
    // waits for this record as its probe. (A partner failing every attempt still trips it: the
    // retries the budget grants run out, and those are failed deliveries.)
    if (d.ticket.probe) {
      tell_breaker_failure(d, a, error_class, now, out);
      d.ticket.probe = false;
    }
    d.last_error_class = error_class;
    d.last_answer = a;
    refuse_retry(id, d, a, error_class, now, out);
    return;
  }
  if (backoff_.may_retry(d.attempts)) {
    const auto delay = backoff_.delay_after(d.attempts, retry_after_of(a, now));
    ++counters_[delivery_counter::retries];
    // Debug: with a partner answering 503 to some attempts it would be a line per attempt.
    out.emplace_back(log_line{log_level::debug,
                              "delivery retry scheduled",
                              {{"route", settings_.route},
                               {"idempotency_key", d.idempotency_key},
                               {"attempt", std::int64_t{d.attempts}},
                               {"error_class", error_class},
                               {"status", std::int64_t{a.status}},
                               {"delay_ms", std::int64_t{delay.count()}}},
                              /*per_record=*/true});
    d.phase = delivery_phase::backing_off;
    d.last_error_class = error_class;
    d.last_answer = a;
    out.emplace_back(schedule_retry{id, delay});
    return;
  }
  // One delivery is one breaker event, however many attempts it took.
  ++counters_[delivery_counter::exhausted];
  give_up(id, d, a, error_class, now, out);
}

// The endpoint refused the record for a reason that is not about the record: a failed delivery
// for the breaker, and the record tries again after a backoff (asking the breaker's permit, so
// it waits while the breaker is Open). The attempt does not count toward the record's attempts.
void attempt_policy::hold(delivery_id id, delivery& d, const attempt_answer& a,
                          const std::string& error_class, time_point now, actions& out, bool gone) {
  tell_breaker_failure(d, a, error_class, now, out, gone);
  d.ticket.probe = false;
  --d.attempts;
  ++d.held_attempts;
  ++counters_[delivery_counter::endpoint_failures];
  const auto delay = backoff_.delay_after(d.held_attempts, retry_after_of(a, now));
  out.emplace_back(log_line{log_level::info,
                            "delivery held: the endpoint refused it",
                            {{"route", settings_.route},
                             {"idempotency_key", d.idempotency_key},
                             {"error_class", error_class},
                             {"status", std::int64_t{a.status}},
                             {"held_attempts", std::int64_t{d.held_attempts}},
                             {"delay_ms", std::int64_t{delay.count()}}},
                            /*per_record=*/true});
  d.phase = delivery_phase::held;
  out.emplace_back(schedule_retry{id, delay});
}

// The record's attempt sequence ends without a delivery: one failed breaker event, and the
// record moves to the next tier (the DLQ after the last), or parks if it was a failed probe.
void attempt_policy::give_up(delivery_id id, delivery& d, const attempt_answer& a,
                             const std::string& error_class, time_point now, actions& out) {
  const bool failed_probe = d.ticket.probe;
  tell_breaker_failure(d, a, error_class, now, out);
  d.ticket.probe = false;
  if (failed_probe && parks_in_tiers()) {  // still down: it waits as the endpoint's others do
    park(id, d, {error_class_name::breaker_open, "its Half-Open probe failed"}, now, out);
  } else {
    route_onward(id, d, /*permanent=*/false, error_class, a, now, out);
  }
}

// -- moving on --------------------------------------------------------------------------------

void attempt_policy::write_receipt(delivery_id id, delivery& d, const attempt_answer& a,
                                   time_point now, actions& out) {
  d.phase = delivery_phase::writing_receipt;
  d.final_status = a.status;
  receipt here;
  here.route = settings_.route;
  here.attempts = d.total_attempts;
  here.status = a.status;
  here.first_attempt_ms = d.first_attempt_ms;
  here.delivered_ms = to_ms(now);
  here.response_headers = a.response_headers;
  here.instance = settings_.instance;
  auto move = receipt_move(d.rec, d.idempotency_key, receipt_of(d.rec, std::move(here)),
                           settings_.topics.receipts, to_integer(id));
  out.emplace_back(produce_onward{id, std::move(move.to), std::move(move.onward)});
}

// Sends a record that is done with its in-process attempts to the next tier or the DLQ; the
// outcome goes to its consumer only once the broker acknowledged it.
void attempt_policy::route_onward(delivery_id id, delivery& d, bool permanent,
                                  const std::string& error_class, const attempt_answer& a,
                                  time_point now, actions& out, tier_step step) {
  auto move = failure_move(d.rec, settings_.route, settings_.topics,
                           failure_of(a, error_class, d.trace, d.attempts, to_ms(now)), permanent,
                           step, to_integer(id));
  const bool to_tier = move.to.what == destination::kind::tier;
  d.phase = to_tier ? delivery_phase::moving_to_tier : delivery_phase::dead_lettering;
  d.final_status = a.status;
  d.final_error_class = error_class;
  out.emplace_back(log_line{log_level::warn,
                            to_tier ? "record moved to a retry tier" : "record dead-lettered",
                            {{"route", settings_.route},
                             {"idempotency_key", d.idempotency_key},
                             {"from", d.rec.topic},
                             {"to", move.to.topic},
                             {"error_class", error_class},
                             {"status", std::int64_t{a.status}},
                             {"attempts", std::int64_t{d.attempts}}},
                            /*per_record=*/true});
  out.emplace_back(produce_onward{id, std::move(move.to), std::move(move.onward)});
}

void attempt_policy::finish(delivery_id id, delivery_end how, int status, std::string error_class,
                            actions& out) {
  const auto& d = *pending_.find(id);
  out.emplace_back(report_outcome{
      id, delivery_outcome{d.rec.position(), how, d.total_attempts, status, std::move(error_class)},
      d.rec.timestamp_ms});
  pending_.forget(id);
}

}  // namespace courier
