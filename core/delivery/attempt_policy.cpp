#include "core/delivery/attempt_policy.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>

#include "core/delivery/retry_after.hpp"
#include "core/delivery/status_classifier.hpp"
#include "core/model/idempotency_key.hpp"
#include "core/retry/error_trace.hpp"
#include "core/retry/receipt.hpp"
#include "core/retry/retry_headers.hpp"

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

// The answer's text without the secrets; nothing when it holds none (no copy on the usual path).
std::optional<attempt_answer> redacted(const attempt_answer& a, const secret_redactor& r,
                                       const std::vector<std::string_view>& sent) {
  const bool in_headers = std::any_of(a.response_headers.begin(), a.response_headers.end(),
                                      [&](const auto& h) { return r.finds_any(h.second, sent); });
  if (!in_headers && !r.finds_any(a.body, sent) && !r.finds_any(a.error_message, sent)) {
    return std::nullopt;
  }
  attempt_answer clean = a;
  clean.body = r.redact(a.body, sent);
  clean.error_message = r.redact(a.error_message, sent);
  for (auto& h : clean.response_headers) {
    h.second = r.redact(h.second, sent);
  }
  return clean;
}

std::string failure_message(const attempt_answer& a) {
  if (!a.error_message.empty()) {
    return a.error_message;
  }
  return "the receiver answered " + std::to_string(a.status);
}

}  // namespace

bool attempt_policy::coordinates::operator==(const coordinates& other) const {
  return offset == other.offset && partition == other.partition && topic == other.topic;
}

std::size_t attempt_policy::coordinates_hash::operator()(const coordinates& c) const {
  std::size_t h = std::hash<std::string_view>{}(c.topic);
  h ^= std::hash<std::int64_t>{}(c.offset) + 0x9e3779b97f4a7c15ULL + (h << 6U) + (h >> 2U);
  h ^= std::hash<std::int32_t>{}(c.partition) + 0x9e3779b97f4a7c15ULL + (h << 6U) + (h >> 2U);
  return h;
}

attempt_policy::attempt_policy(attempt_policy_settings settings,
                               full_jitter_backoff::uniform_source uniform)
    : settings_(std::move(settings)),
      signing_(settings_.signing),
      redactor_(redactor_of(settings_)),
      backoff_(settings_.backoff, std::move(uniform)),
      judge_(settings_.judge) {
  if (settings_.adaptive) {
    limit_.emplace(*settings_.adaptive);
  }
  if (settings_.retry_budget) {
    budget_.emplace(*settings_.retry_budget);
  }
}

// While the breaker is known Closed and has been told no failure since the last success, a
// success would reset a count that is already zero: it is not sent (one message per delivery
// saved on the hot path). Probes, failures and the success after a failure always go.
void attempt_policy::tell_breaker(bool success, const delivery& d, actions& out, bool gone,
                                  std::chrono::milliseconds retry_after, breaker_failure why) {
  if (success && !d.probe && !failure_told_ && breaker_known_ == breaker_state::closed &&
      d.breaker_generation == breaker_generation_) {
    return;
  }
  if (d.breaker_generation == breaker_generation_) {
    // A stale outcome is dropped by the breaker: it neither counts a failure nor resets one.
    failure_told_ = !success;
  }
  out.emplace_back(
      breaker_outcome{success, d.probe, d.breaker_generation, gone, retry_after, std::move(why)});
}

// A failed delivery for the breaker, with what the receiver asked for and why it failed.
void attempt_policy::tell_breaker_failure(const delivery& d, const attempt_answer& a,
                                          const std::string& error_class, time_point now,
                                          actions& out, bool gone) {
  tell_breaker(false, d, out, gone, retry_after_of(a, now).value_or(std::chrono::milliseconds{0}),
               breaker_failure{error_class, failure_message(a)});
}

// -- events -----------------------------------------------------------------------------------

std::pair<delivery_id, attempt_policy::delivery&> attempt_policy::take(record r) {
  const delivery_id id{next_id_++};
  delivery d;
  d.idempotency_key = idempotency_key_for(r);
  d.rec = std::move(r);
  delivery& taken = pending_.emplace(id, std::move(d)).first->second;
  const coordinates at{taken.rec.topic, taken.rec.partition, taken.rec.offset};
  // A record handed in twice: the index names the newest delivery, and its key must view that
  // delivery's topic, not the older one's (insert_or_assign would keep the old key).
  by_coordinates_.erase(at);
  by_coordinates_.emplace(at, id);
  return {id, taken};
}

attempt_policy::accepted attempt_policy::on_record(record r, time_point now) {
  accepted out;
  out.id = take(std::move(r)).first;
  try_attempt(out.id, now, out.todo);
  return out;
}

attempt_policy::accepted attempt_policy::on_parked_record(record r, time_point now) {
  accepted out;
  auto [id, d] = take(std::move(r));
  out.id = id;
  attempt_answer why;
  why.id = id;
  why.error_message =
      "not attempted: an earlier record of its key was dead-lettered (ordering.on_dead_letter "
      "\"park\")";
  route_onward(id, d, /*permanent=*/true, "key_parked", why, now, out.todo);
  return out;
}

attempt_policy::actions attempt_policy::on_permit(delivery_id id, const breaker_permit& permit,
                                                  time_point now) {
  actions out;
  auto it = pending_.find(id);
  if (it == pending_.end()) {
    return out;
  }
  if (!permit.granted) {
    parked_.push_back(id);
    return out;
  }
  it->second.breaker_generation = permit.generation;
  send_attempt(id, it->second, permit.probe, now, out);
  return out;
}

attempt_policy::actions attempt_policy::on_answer(const attempt_answer& a, time_point now) {
  if (pending_.count(a.id) == 0) {
    return {};
  }
  if (attempts_out_ > 0) {
    --attempts_out_;
  }
  sample_limit(a, now);
  // A partner (or its gateway) may echo the request: its text is kept (retry headers, trace,
  // logs, receipts) only without the route's secrets and the credential this attempt carried.
  const auto clean =
      redacted(a, redactor_, authorization_secrets(pending_.at(a.id).authorization_sent));
  auto out = answer(clean ? *clean : a, now);
  release_slots(now, out);
  return out;
}

// The limit's clock is the events' wall clock seen as a steady one: it only measures windows
// between answers, and a sample's latency comes measured with the answer.
void attempt_policy::sample_limit(const attempt_answer& a, time_point now) {
  if (!limit_) {
    return;
  }
  sample_kind kind = sample_kind::other_failure;
  if (a.status >= 200 && a.status < 300) {
    kind = sample_kind::success;
  } else if (a.status == 429 || a.status == 503 || a.transport == transport_error::timeout) {
    kind = sample_kind::overload;
  }
  limit_->on_sample(
      a.duration, kind, static_cast<int>(attempts_out_) + 1,
      adaptive_limit::clock::time_point{
          std::chrono::duration_cast<adaptive_limit::clock::duration>(now.time_since_epoch())});
}

// A record queued for a slot waited while the breaker may have changed: only a probe (its
// permit in hand) goes straight out; any other asks again as try_attempt does (no round trip
// while the breaker is known Closed; a permit otherwise, so that while it is Open the record
// is parked and spends nothing).
void attempt_policy::release_slots(time_point now, actions& out) {
  while (!slot_wait_.empty() && (!limit_ || limit_->may_start(static_cast<int>(attempts_out_)))) {
    const auto [id, probe] = slot_wait_.front();
    slot_wait_.pop_front();
    auto it = pending_.find(id);
    if (it == pending_.end()) {
      continue;
    }
    if (probe && probe_permit_holds(it->second)) {
      send_attempt(id, it->second, /*probe=*/true, now, out);
    } else {
      try_attempt(id, now, out);
    }
  }
}

int attempt_policy::concurrency_limit() const { return limit_ ? limit_->limit() : 0; }

attempt_policy::actions attempt_policy::answer(const attempt_answer& a, time_point now) {
  actions out;
  auto it = pending_.find(a.id);
  if (it == pending_.end()) {
    return out;
  }
  ++counters_[answer_class_counter(a.status)];
  const auto id = a.id;
  auto& d = it->second;
  const auto now_ms = to_ms(now);
  const auto verdict = judge_.judge(a.status, a.transport, d.probe);
  const auto klass = error_class(a.status, a.transport);
  flag_endpoint(a, out);
  flag_gone(a, verdict, out);
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
      d.probe = false;
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
  const auto at =
      by_coordinates_.find(coordinates{position.topic, position.partition, position.offset});
  if (at == by_coordinates_.end()) {
    return out;
  }
  const auto id = at->second;
  auto& d = pending_.at(id);
  if (d.moving_on || d.expedited) {
    return out;
  }
  d.expedited = true;
  // While the breaker is Open nothing moves to a tier (DESIGN.md section 2): the record moves
  // at its next retriable failure, once the breaker let it try again.
  if (d.in_backoff && !breaker_open_) {
    ++counters_[delivery_counter::head_of_line_moves];
    out.emplace_back(log_line{log_level::info,
                              "head of line moved to a retry tier",
                              {{"route", settings_.route},
                               {"idempotency_key", d.idempotency_key},
                               {"attempts", std::int64_t{d.attempts}}},
                              /*per_record=*/true});
    give_up(id, d, d.last_answer, d.last_error_class, now, out);
  }
  return out;
}

attempt_policy::actions attempt_policy::on_breaker_change(breaker_state to,
                                                          std::uint64_t generation,
                                                          time_point now) {
  actions out;
  breaker_open_ = to == breaker_state::open;
  breaker_known_ = to;
  breaker_generation_ = generation;
  failure_told_ = false;  // a breaker that changed state counts afresh
  if (breaker_open_) {
    return out;
  }
  auto waiting = std::move(parked_);
  parked_.clear();
  for (const auto id : waiting) {
    try_attempt(id, now, out);
  }
  return out;
}

attempt_policy::actions attempt_policy::on_token_due(time_point now) {
  actions out;
  token_timer_armed_ = false;
  while (!rate_wait_.empty()) {
    const auto w = rate_wait_.front();
    auto it = pending_.find(w.id);
    if (it == pending_.end() || it->second.moving_on) {
      rate_wait_.pop_front();
      continue;
    }
    if (!bucket(now).try_take(now)) {
      break;
    }
    rate_wait_.pop_front();
    if (now > w.since) {
      counters_[delivery_counter::rate_limited_us] += static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::microseconds>(now - w.since).count());
    }
    it->second.has_token = true;
    if (w.probe && probe_permit_holds(it->second)) {
      send_attempt(w.id, it->second, /*probe=*/true, now, out);
    } else {
      try_attempt(w.id, now, out);
    }
  }
  if (!rate_wait_.empty() && !token_timer_armed_) {
    token_timer_armed_ = true;
    out.emplace_back(schedule_token{bucket(now).until_next(now)});
  }
  return out;
}

attempt_policy::actions attempt_policy::on_quota_share(int assigned, int topic_partitions,
                                                       time_point now) {
  actions out;
  if (!settings_.rate_limit || assigned <= 0) {
    return out;
  }
  share_ = quota_share(assigned, topic_partitions);
  const auto& q = *settings_.rate_limit;
  bucket(now).set_rate(share_of(q), now);
  return out;
}

attempt_policy::actions attempt_policy::on_credentials(std::string authorization, time_point now) {
  actions out;
  if (authorization == authorization_ || authorization.empty()) {
    return out;
  }
  authorization_ = std::move(authorization);
  ++credentials_generation_;
  auto waiting = std::move(credentials_wait_);
  credentials_wait_.clear();
  for (const auto& [id, probe] : waiting) {
    auto it = pending_.find(id);
    if (it == pending_.end() || it->second.moving_on) {
      continue;
    }
    if (probe && probe_permit_holds(it->second)) {
      send_attempt(id, it->second, /*probe=*/true, now, out);
    } else {
      try_attempt(id, now, out);
    }
  }
  return out;
}

attempt_policy::actions attempt_policy::on_credentials_refreshed(
    delivery_id id, const std::optional<std::string>& fresh, time_point now) {
  actions out;
  if (fresh) {
    out = on_credentials(*fresh, now);
  }
  auto it = pending_.find(id);
  if (it == pending_.end() || it->second.moving_on) {
    return out;
  }
  auto& d = it->second;
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
  auto it = pending_.find(id);
  if (it == pending_.end() || !it->second.moving_on) {
    return out;
  }
  auto& d = it->second;
  if (d.receipt) {
    ++counters_[delivery_counter::delivered];
    finish(id, delivery_end::delivered, d.final_status, {}, out);
    return out;
  }
  if (d.to_tier) {
    ++counters_[delivery_counter::retried];
  } else {
    ++counters_[delivery_counter::dead_lettered];
  }
  finish(id, d.to_tier ? delivery_end::retried : delivery_end::dead_lettered, d.final_status,
         std::move(d.final_error_class), out);
  return out;
}

attempt_policy::actions attempt_policy::on_onward_failed(delivery_id id, const std::string& why) {
  actions out;
  auto it = pending_.find(id);
  if (it == pending_.end()) {
    return out;
  }
  out.emplace_back(log_line{log_level::error,
                            "a retry/DLQ record was not acknowledged; its offset stays uncommitted",
                            {{"route", settings_.route}, {"error", why}}});
  forget(it);
  return out;
}

// -- observers --------------------------------------------------------------------------------

const attempt_policy::delivery* attempt_policy::find(delivery_id id) const {
  auto it = pending_.find(id);
  return it == pending_.end() ? nullptr : &it->second;
}

std::size_t attempt_policy::in_flight() const { return pending_.size(); }

std::size_t attempt_policy::parked() const { return parked_.size(); }

bool attempt_policy::endpoint_blocked() const { return endpoint_blocked_; }

bool attempt_policy::endpoint_gone() const { return endpoint_gone_; }

// -- decisions --------------------------------------------------------------------------------

// The SSRF guard's refusal is about the route's configuration: flagged once when it starts (the
// held records log their own lines), cleared by the first answer that got through.
void attempt_policy::flag_endpoint(const attempt_answer& a, actions& out) {
  const bool blocked = a.transport == transport_error::ssrf_blocked;
  if (blocked) {
    ++counters_[delivery_counter::ssrf_blocked];
  }
  if (blocked == endpoint_blocked_) {
    return;
  }
  endpoint_blocked_ = blocked;
  if (blocked) {
    out.emplace_back(log_line{log_level::error,
                              "route flagged: the SSRF guard refused its endpoint",
                              {{"route", settings_.route},
                               {"error_class", std::string{"ssrf_blocked"}},
                               {"error", a.error_message}}});
  } else {
    out.emplace_back(log_line{log_level::info,
                              "route unflagged: its endpoint is reachable",
                              {{"route", settings_.route}}});
  }
}

// 410 Gone: the receiver asks us to stop (Standard Webhooks: disable the endpoint). Flagged once
// when it starts, cleared by the first 2xx (a probe got through); other answers leave it as is.
void attempt_policy::flag_gone(const attempt_answer& a, answer_verdict verdict, actions& out) {
  if (verdict == answer_verdict::endpoint_gone) {
    ++counters_[delivery_counter::gone];
    if (!endpoint_gone_) {
      endpoint_gone_ = true;
      out.emplace_back(log_line{log_level::error,
                                "route flagged: the receiver answered 410 Gone",
                                {{"route", settings_.route},
                                 {"error_class", std::string{"http_410"}},
                                 {"status", std::int64_t{a.status}}}});
    }
    return;
  }
  if (verdict == answer_verdict::delivered && endpoint_gone_) {
    endpoint_gone_ = false;
    out.emplace_back(log_line{log_level::info,
                              "route unflagged: the receiver delivers again",
                              {{"route", settings_.route}}});
  }
}

// Every attempt needs the breaker's permit (implied while it is known Closed); while it is Open
// the record waits, spending nothing.
// The Half-Open probe holds its permit for its whole attempt sequence: one delivery is one
// breaker event, however many attempts it took.
void attempt_policy::try_attempt(delivery_id id, time_point now, actions& out) {
  auto it = pending_.find(id);
  if (it == pending_.end() || it->second.moving_on) {
    return;  // done, or moved on to a tier while it waited for this attempt
  }
  it->second.in_backoff = false;
  if (it->second.probe) {
    if (probe_permit_holds(it->second)) {
      send_attempt(id, it->second, /*probe=*/true, now, out);
      return;
    }
    it->second.probe = false;  // the breaker moved on: this record asks like any other
  }
  if (breaker_known_ == breaker_state::closed) {
    // No round trip to the breaker per attempt while it is Closed. Should it trip meanwhile,
    // the attempts already under way carry the old generation and do not count toward the
    // next state; the change message switches this back to permits.
    it->second.breaker_generation = breaker_generation_;
    send_attempt(id, it->second, /*probe=*/false, now, out);
    return;
  }
  out.emplace_back(request_permit{id});
}

// A probe's permit lasts while the breaker that granted it has not changed since: once it has
// (reopened after another probe failed, or closed), an attempt under it would go out while the
// breaker is Open, and its outcome would be dropped as stale.
bool attempt_policy::probe_permit_holds(const delivery& d) const {
  return d.breaker_generation >= breaker_generation_;
}

// An attempt's gates, in order: the route's credentials (none sent before the first), the retry
// budget (a retry tier's record over it moves on without an attempt), the rate limit's token
// (waiting holds no connection), the adaptive limit's slot. A gate passed stays passed while the
// record waits at a later one.
void attempt_policy::send_attempt(delivery_id id, delivery& d, bool probe, time_point now,
                                  actions& out) {
  if (settings_.authenticated && authorization_.empty()) {
    credentials_wait_.emplace_back(id, probe);
    return;
  }
  if (budget_ && !probe && !d.budget_counted &&
      (d.budget_wait || (d.total_attempts == 0 && is_retry(d)))) {
    if (!budget_->may_retry(now)) {
      attempt_answer none;
      none.id = id;
      none.error_message = "the route's retry budget is spent";
      refuse_retry(id, d, none, d.budget_wait ? d.last_error_class : "retry_budget", now, out);
      return;
    }
    // Counted when granted, so the retries granted before any is sent share one room.
    budget_->note_retry(now);
    d.budget_counted = true;
  }
  d.budget_wait = false;
  if (settings_.rate_limit && !d.has_token) {
    // Behind every attempt already waiting (a probe goes first).
    if (!rate_wait_.empty() || !bucket(now).try_take(now)) {
      wait_for_token(id, probe, now, out);
      return;
    }
    d.has_token = true;
  }
  if (limit_ && !limit_->may_start(static_cast<int>(attempts_out_))) {
    // Over the adaptive limit: the next free slot is its. A Half-Open probe goes first: the
    // breaker waits for its answer alone.
    if (probe) {
      slot_wait_.emplace_front(id, probe);
    } else {
      slot_wait_.emplace_back(id, probe);
    }
    return;
  }
  ++attempts_out_;
  d.has_token = false;
  if (probe && !d.probe) {
    d.attempts = 0;  // the probe is a whole delivery, whatever it spent before the breaker opened
  }
  if (budget_) {
    if (!is_retry(d)) {
      budget_->note_first(now);
    } else if (!d.budget_counted) {
      budget_->note_retry(now);  // one the budget does not gate: a probe, a held record's
    }
    d.budget_counted = false;
  }
  d.probe = probe;
  if (d.first_attempt_ms == 0) {
    d.first_attempt_ms = to_ms(now);
  }
  ++d.attempts;
  ++d.total_attempts;
  ++counters_[delivery_counter::attempts];
  d.credentials_generation = credentials_generation_;
  d.authorization_sent = authorization_;
  const auto attempt_time =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  auto request = make_delivery_request(d.rec, d.idempotency_key, signing_, settings_.content_type,
                                       attempt_time);
  add_route_headers(request, d.rec, settings_.headers, authorization_);
  out.emplace_back(post_attempt{id, std::move(request)});
}

// Any attempt but a record's first from its source topic: a retry tier's record was tried before.
bool attempt_policy::is_retry(const delivery& d) const {
  return d.total_attempts > 0 || settings_.topics.tier_index(d.rec.topic) >= 0;
}

// This instance's share of the route's quota: its rate and its burst scaled alike.
rate_limit_settings attempt_policy::share_of(const rate_limit_settings& q) const {
  return rate_limit_settings{q.requests_per_second * share_,
                             std::max(1.0, q.effective_burst() * share_)};
}

token_bucket& attempt_policy::bucket(time_point now) {
  if (!bucket_) {
    const auto& q = *settings_.rate_limit;
    bucket_.emplace(share_of(q), now);
  }
  return *bucket_;
}

void attempt_policy::wait_for_token(delivery_id id, bool probe, time_point now, actions& out) {
  if (probe) {
    rate_wait_.push_front(rate_waiter{id, probe, now});
  } else {
    rate_wait_.push_back(rate_waiter{id, probe, now});
  }
  ++counters_[delivery_counter::rate_limited];
  if (!token_timer_armed_) {
    token_timer_armed_ = true;
    out.emplace_back(schedule_token{bucket(now).until_next(now)});
  }
}

// A retry over the budget: the record moves on to its next retry tier, from the last tier into
// the last tier again, never to the DLQ for this reason; on a route without tiers it waits its
// backoff and asks the budget again.
void attempt_policy::refuse_retry(delivery_id id, delivery& d, const attempt_answer& a,
                                  const std::string& error_class, time_point now, actions& out) {
  ++counters_[delivery_counter::retry_budget_refused];
  if (settings_.topics.tiers.empty()) {
    const auto delay = backoff_.delay_after(std::max(1, d.attempts), retry_after_of(a, now));
    if (!d.budget_wait) {
      d.last_error_class = error_class;
      d.last_answer = a;
    }
    d.budget_wait = true;
    d.in_backoff = true;
    out.emplace_back(schedule_retry{id, delay});
    return;
  }
  out.emplace_back(log_line{log_level::info,
                            "retry over the retry budget: the record moves on to its retry tier",
                            {{"route", settings_.route},
                             {"idempotency_key", d.idempotency_key},
                             {"error_class", error_class}},
                            /*per_record=*/true});
  route_onward(id, d, /*permanent=*/false, error_class, a, now, out, /*stay_in_tiers=*/true);
}

// A 401 to an authenticated route: when the credentials changed since the attempt went, it tries
// again with the new ones; otherwise, once per record, fresh credentials are asked for. Neither
// counts as one of the record's attempts. False: the 401 is judged as any answer (an endpoint
// failure).
bool attempt_policy::refresh_on_401(delivery_id id, delivery& d, time_point now, actions& out) {
  if (d.credentials_generation != credentials_generation_) {
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
  out.emplace_back(log_line{log_level::info,
                            "the partner answered 401: asking for fresh credentials",
                            {{"route", settings_.route}, {"idempotency_key", d.idempotency_key}},
                            /*per_record=*/true});
  out.emplace_back(refresh_credentials{id, authorization_});
  return true;
}

void attempt_policy::on_retriable(delivery_id id, delivery& d, const attempt_answer& a,
                                  const std::string& error_class, time_point now, actions& out) {
  if (d.expedited) {
    ++counters_[delivery_counter::head_of_line_moves];
    give_up(id, d, a, error_class, now, out);
    return;
  }
  if (backoff_.may_retry(d.attempts) && budget_) {
    if (!budget_->may_retry(now)) {
      // Courier's own refusal, not a verdict on the endpoint: the breaker hears of it only
      // when it waits for this record as its probe. (A partner failing every attempt still
      // trips it: the retries the budget grants run out, and those are failed deliveries.)
      if (d.probe) {
        tell_breaker_failure(d, a, error_class, now, out);
        d.probe = false;
      }
      refuse_retry(id, d, a, error_class, now, out);
      return;
    }
    // Counted now, not when its backoff ran out: every record failing within one backoff
    // would otherwise be granted the same room.
    budget_->note_retry(now);
    d.budget_counted = true;
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
    d.in_backoff = true;
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
  d.probe = false;
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
  out.emplace_back(schedule_retry{id, delay});
}

// The record's attempt sequence ends without a delivery: one failed breaker event, and the
// record moves to the next tier (or the DLQ after the last one).
void attempt_policy::give_up(delivery_id id, delivery& d, const attempt_answer& a,
                             const std::string& error_class, time_point now, actions& out) {
  tell_breaker_failure(d, a, error_class, now, out);
  d.probe = false;
  route_onward(id, d, /*permanent=*/false, error_class, a, now, out);
}

void attempt_policy::write_receipt(delivery_id id, delivery& d, const attempt_answer& a,
                                   time_point now, actions& out) {
  d.moving_on = true;
  d.receipt = true;
  d.final_status = a.status;
  receipt r;
  r.route = settings_.route;
  r.origin = d.rec.position();
  r.attempts = d.total_attempts;
  r.status = a.status;
  r.first_attempt_ms = d.first_attempt_ms;
  r.delivered_ms = to_ms(now);
  r.response_headers = a.response_headers;
  r.instance = settings_.instance;
  if (find_header(d.rec.headers, origin_topic_header)) {
    // A tier's copy or a redriven record: where it first appeared, the attempts before and the
    // first failure (its first attempt was just before) are in its headers.
    try {
      const auto state = read_retry_state(d.rec.headers);
      if (state.from) {
        r.origin = record_position{state.from->topic, state.from->partition, state.from->offset};
      }
      // Saturated: a tier record's count is at most INT_MAX already (retry_headers.cpp).
      r.attempts = static_cast<int>(std::min<std::int64_t>(
          std::int64_t{r.attempts} + state.total_attempts, std::numeric_limits<int>::max()));
      if (state.first_failure_ms) {
        r.first_attempt_ms = *state.first_failure_ms;
      }
    } catch (const header_error&) {
      // Written by hand or by something else: the receipt names the copy as it is.
    }
  }
  onward_record onward;
  onward.produce.topic = settings_.topics.receipts;
  onward.produce.partition = d.rec.partition;
  onward.produce.key = d.idempotency_key;
  onward.produce.value = encode_receipt(r);
  onward.from = d.rec.position();
  onward.tag = to_integer(id);
  out.emplace_back(
      produce_onward{id,
                     destination{destination::kind::receipt, -1, settings_.topics.receipts,
                                 std::chrono::milliseconds{0}},
                     std::move(onward)});
}

// Sends a record that is done with its in-process attempts to the next tier or the DLQ; the
// outcome goes to its consumer only once the broker acknowledged it.
void attempt_policy::route_onward(delivery_id id, delivery& d, bool permanent,
                                  const std::string& error_class, const attempt_answer& a,
                                  time_point now, actions& out, bool stay_in_tiers) {
  d.moving_on = true;
  const auto now_ms = to_ms(now);
  int current = settings_.topics.tier_index(d.rec.topic);
  const int last = static_cast<int>(settings_.topics.tiers.size()) - 1;
  if (stay_in_tiers && current == last) {
    current = last - 1;  // into the last tier again
  }
  auto dest = next_destination(current, permanent, settings_.topics);
  failure_info f;
  f.error_class = error_class;
  f.error_message = failure_message(a);
  f.status = a.status;
  f.response_excerpt = a.body;
  f.trace = d.trace;
  f.attempts = d.attempts;
  f.failed_at_ms = now_ms;
  d.to_tier = dest.what == destination::kind::tier;
  d.final_status = a.status;
  d.final_error_class = error_class;
  onward_record onward;
  onward.produce.topic = dest.topic;
  onward.produce.partition = d.rec.partition;
  onward.produce.key = d.rec.key;
  onward.produce.value = d.rec.value;
  onward.produce.headers = retry_headers(d.rec, settings_.route, dest, f, now_ms);
  onward.from = d.rec.position();
  onward.tag = to_integer(id);
  out.emplace_back(log_line{log_level::warn,
                            d.to_tier ? "record moved to a retry tier" : "record dead-lettered",
                            {{"route", settings_.route},
                             {"idempotency_key", d.idempotency_key},
                             {"from", d.rec.topic},
                             {"to", dest.topic},
                             {"error_class", error_class},
                             {"status", std::int64_t{a.status}},
                             {"attempts", std::int64_t{d.attempts}}},
                            /*per_record=*/true});
  out.emplace_back(produce_onward{id, std::move(dest), std::move(onward)});
}

void attempt_policy::finish(delivery_id id, delivery_end how, int status, std::string error_class,
                            actions& out) {
  auto it = pending_.find(id);
  const auto& d = it->second;
  out.emplace_back(report_outcome{
      id, delivery_outcome{d.rec.position(), how, d.total_attempts, status, std::move(error_class)},
      d.rec.timestamp_ms});
  forget(it);
}

void attempt_policy::forget(std::unordered_map<delivery_id, delivery>::iterator it) {
  const auto& r = it->second.rec;
  const auto at = by_coordinates_.find(coordinates{r.topic, r.partition, r.offset});
  // The index names the newest delivery of a record that was handed in twice.
  if (at != by_coordinates_.end() && at->second == it->first) {
    by_coordinates_.erase(at);
  }
  pending_.erase(it);
}

}  // namespace courier
