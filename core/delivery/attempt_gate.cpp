#include "core/delivery/attempt_gate.hpp"

#include <algorithm>
#include <utility>

namespace courier {
namespace {

admission waits_for(waiting_for what) {
  admission a;
  a.wait = what;
  return a;
}

}  // namespace

attempt_gate::attempt_gate(attempt_gate_settings settings) : settings_(settings) {
  if (settings_.adaptive) {
    limit_.emplace(*settings_.adaptive);
  }
  if (settings_.retry_budget) {
    budget_.emplace(*settings_.retry_budget);
  }
}

// -- the question -------------------------------------------------------------------------------

// The lines in order: the breaker, the route's credentials (none sent before the first), the
// retry budget (a retry tier's record over it is refused without an attempt), the rate limit's
// token (waiting holds no connection), the adaptive limit's slot. A permit that is not a probe's
// is not held across a wait: the attempt asks the breaker again when it comes back.
admission attempt_gate::admit(delivery_id id, attempt_ticket& t, attempt_kind kind,
                              time_point now) {
  if (t.permit == breaker_pass::denied) {
    t.permit = breaker_pass::none;
    parked_.push_back(id);
    return waits_for(waiting_for::breaker);
  }
  if (!breaker_passes(t)) {
    return waits_for(waiting_for::permit);
  }
  // A probe's permit is held for its sequence; any other is for this attempt only, spent now or
  // dropped.
  const bool probe = t.permit == breaker_pass::probe || t.permit == breaker_pass::probe_granted;
  t.permit = probe ? breaker_pass::probe : breaker_pass::none;
  if (settings_.authenticated && authorization_.empty()) {
    credentials_wait_.push_back(id);
    return waits_for(waiting_for::credentials);
  }
  if (!budget_passes(t, kind, now)) {
    return waits_for(waiting_for::retry_budget);
  }
  if (settings_.rate_limit && !t.token) {
    // Behind every attempt already waiting (a probe goes first).
    if (!rate_wait_.empty() || !bucket(now).try_take(now)) {
      return wait_for_token(id, t, now);
    }
    t.token = true;
  }
  if (limit_ && !limit_->may_start(static_cast<int>(attempts_out_))) {
    // The next free slot is its. A Half-Open probe goes first: the breaker waits for its answer
    // alone.
    if (probe) {
      slot_wait_.push_front(id);
    } else {
      slot_wait_.push_back(id);
    }
    return waits_for(waiting_for::slot);
  }
  return go(t, kind, now);
}

void attempt_gate::take_permit(attempt_ticket& t, const breaker_permit& p) {
  if (!p.granted) {
    t.permit = breaker_pass::denied;
    return;
  }
  t.breaker_generation = p.generation;
  t.permit = p.probe ? breaker_pass::probe_granted : breaker_pass::granted;
}

// Every attempt needs the breaker's permit (implied while it is known Closed); the Half-Open
// probe holds its permit for its whole attempt sequence: one delivery is one breaker event,
// however many attempts it took.
bool attempt_gate::breaker_passes(attempt_ticket& t) {
  switch (t.permit) {
    case breaker_pass::granted:
    case breaker_pass::probe_granted:
      return true;
    case breaker_pass::probe:
      if (probe_permit_holds(t)) {
        return true;
      }
      break;
    case breaker_pass::none:
    case breaker_pass::denied:
      break;
  }
  t.permit = breaker_pass::none;
  if (t.probe) {
    if (probe_permit_holds(t)) {
      t.permit = breaker_pass::probe;
      return true;
    }
    t.probe = false;  // the breaker moved on: this record asks like any other
  }
  if (breaker_known_ == breaker_state::closed) {
    // No round trip to the breaker per attempt while it is Closed. Should it trip meanwhile,
    // the attempts already under way carry the old generation and do not count toward the
    // next state; the change message switches this back to permits.
    t.breaker_generation = breaker_generation_;
    t.permit = breaker_pass::granted;
    return true;
  }
  return false;
}

// A probe's permit lasts while the breaker that granted it has not changed since: once it has
// (reopened after another probe failed, or closed), an attempt under it would go out while the
// breaker is Open, and its outcome would be dropped as stale.
bool attempt_gate::probe_permit_holds(const attempt_ticket& t) const {
  return t.breaker_generation >= breaker_generation_;
}

// The budget gates the first attempt here of a retry tier's record, and an attempt it refused
// before; a probe is never held back by it. Counted when granted, so the retries granted before
// any is sent share one room.
bool attempt_gate::budget_passes(attempt_ticket& t, attempt_kind kind, time_point now) {
  if (!budget_) {
    return true;
  }
  const bool gated = t.permit != breaker_pass::probe && t.budget != budget_pass::granted &&
                     (t.budget == budget_pass::ask || kind == attempt_kind::tier_first);
  if (gated) {
    if (!budget_->may_retry(now)) {
      t.budget = budget_pass::ask;
      return false;
    }
    budget_->note_retry(now);
    t.budget = budget_pass::granted;
  }
  if (t.budget == budget_pass::ask) {
    t.budget = budget_pass::none;
  }
  return true;
}

bool attempt_gate::grant_retry(attempt_ticket& t, time_point now) {
  if (!budget_) {
    return true;
  }
  if (!budget_->may_retry(now)) {
    t.budget = budget_pass::ask;
    return false;
  }
  budget_->note_retry(now);
  t.budget = budget_pass::granted;
  return true;
}

admission attempt_gate::wait_for_token(delivery_id id, const attempt_ticket& t, time_point now) {
  if (t.permit == breaker_pass::probe) {
    rate_wait_.push_front(rate_waiter{id, now});
  } else {
    rate_wait_.push_back(rate_waiter{id, now});
  }
  admission a = waits_for(waiting_for::token);
  if (!token_timer_armed_) {
    token_timer_armed_ = true;
    a.token_timer = bucket(now).until_next(now);
  }
  return a;
}

// Every line passed: the attempt takes its slot, spends its token and counts in the budget (a
// retry it did not gate counts too: a probe, a held record's).
admission attempt_gate::go(attempt_ticket& t, attempt_kind kind, time_point now) {
  ++attempts_out_;
  t.token = false;
  if (budget_) {
    if (kind == attempt_kind::first) {
      budget_->note_first(now);
    } else if (t.budget != budget_pass::granted) {
      budget_->note_retry(now);
    }
    t.budget = budget_pass::none;
  }
  const bool probe = t.permit == breaker_pass::probe;
  admission a;
  a.probe_begins = probe && !t.probe;
  t.probe = probe;
  t.permit = breaker_pass::none;
  return a;
}

// -- the lines' events --------------------------------------------------------------------------

void attempt_gate::withdraw_parked(delivery_id id) {
  if (!parked_.empty() && parked_.back() == id) {
    parked_.pop_back();
  }
}

std::vector<delivery_id> attempt_gate::on_breaker_change(breaker_state to,
                                                         std::uint64_t generation) {
  breaker_open_ = to == breaker_state::open;
  breaker_known_ = to;
  breaker_generation_ = generation;
  failure_told_ = false;  // a breaker that changed state counts afresh
  if (breaker_open_) {
    return {};
  }
  std::vector<delivery_id> back{parked_.begin(), parked_.end()};
  parked_.clear();
  return back;
}

void attempt_gate::on_answer(const attempt_answer& a, time_point now) {
  if (attempts_out_ > 0) {
    --attempts_out_;
  }
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

std::optional<delivery_id> attempt_gate::next_for_slot() {
  if (slot_wait_.empty() || (limit_ && !limit_->may_start(static_cast<int>(attempts_out_)))) {
    return std::nullopt;
  }
  const auto id = slot_wait_.front();
  slot_wait_.pop_front();
  return id;
}

void attempt_gate::on_token_timer() { token_timer_armed_ = false; }

std::optional<attempt_gate::token_release> attempt_gate::next_for_token(
    time_point now, const ticket_lookup& waiting) {
  while (!rate_wait_.empty()) {
    const auto w = rate_wait_.front();
    attempt_ticket* t = waiting(w.id);
    if (t == nullptr) {
      rate_wait_.pop_front();
      continue;
    }
    if (!bucket(now).try_take(now)) {
      return std::nullopt;
    }
    rate_wait_.pop_front();
    t->token = true;
    token_release r{w.id};
    if (now > w.since) {
      r.waited = std::chrono::duration_cast<std::chrono::microseconds>(now - w.since);
    }
    return r;
  }
  return std::nullopt;
}

std::optional<std::chrono::microseconds> attempt_gate::token_timer(time_point now) {
  if (rate_wait_.empty() || token_timer_armed_) {
    return std::nullopt;
  }
  token_timer_armed_ = true;
  return bucket(now).until_next(now);
}

void attempt_gate::set_share(int assigned, int topic_partitions, time_point now) {
  if (!settings_.rate_limit || assigned <= 0) {
    return;
  }
  share_ = quota_share(assigned, topic_partitions);
  bucket(now).set_rate(share_of(*settings_.rate_limit), now);
}

std::vector<delivery_id> attempt_gate::on_credentials(std::string authorization) {
  if (authorization == authorization_ || authorization.empty()) {
    return {};
  }
  authorization_ = std::move(authorization);
  ++credentials_generation_;
  std::vector<delivery_id> back{credentials_wait_.begin(), credentials_wait_.end()};
  credentials_wait_.clear();
  return back;
}

// -- the breaker's outcomes ---------------------------------------------------------------------

bool attempt_gate::tells_breaker(bool success, const attempt_ticket& t) {
  if (success && !t.probe && !failure_told_ && breaker_known_ == breaker_state::closed &&
      t.breaker_generation == breaker_generation_) {
    return false;
  }
  if (t.breaker_generation == breaker_generation_) {
    // A stale outcome is dropped by the breaker: it neither counts a failure nor resets one.
    failure_told_ = !success;
  }
  return true;
}

// -- observers ----------------------------------------------------------------------------------

int attempt_gate::concurrency_limit() const { return limit_ ? limit_->limit() : 0; }

double attempt_gate::rate_limit() const {
  return settings_.rate_limit ? settings_.rate_limit->requests_per_second * share_ : 0;
}

// This instance's share of the route's quota: its rate and its burst scaled alike.
rate_limit_settings attempt_gate::share_of(const rate_limit_settings& q) const {
  return rate_limit_settings{q.requests_per_second * share_,
                             std::max(1.0, q.effective_burst() * share_)};
}

token_bucket& attempt_gate::bucket(time_point now) {
  if (!bucket_) {
    bucket_.emplace(share_of(*settings_.rate_limit), now);
  }
  return *bucket_;
}

}  // namespace courier
