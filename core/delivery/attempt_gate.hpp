#pragma once

// Admission of one route's delivery attempts: the one question "may this attempt go now, and if
// not, what is it waiting for", asked once per attempt by the attempt policy
// (core/delivery/attempt_policy.hpp). The gate owns the waiting lines in front of an attempt and
// their state: the breaker (a permit, or parked while it is Open), the route's credentials (none
// sent before the first), the retry budget, the rate limit's token and the adaptive limit's slot.
// A line passed stays passed while the attempt waits at a later one; a line that lets attempts go
// hands them back, and each asks again.
//
// Pure and thread-free: time comes in with the calls that need it. It decides nothing about the
// record (where it moves on, what a refusal means for it): that is the attempt cycle's.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/delivery/adaptive_limit.hpp"
#include "core/delivery/breaker.hpp"
#include "core/delivery/retry_budget.hpp"
#include "core/delivery/token_bucket.hpp"
#include "core/model/attempt_answer.hpp"
#include "core/model/breaker_permit.hpp"
#include "core/model/delivery_id.hpp"

namespace courier {

struct attempt_gate_settings {
  // routes[].auth: nothing is sent before the first Authorization value.
  bool authenticated = false;
  // Every attempt takes a token of this quota, scaled by set_share.
  std::optional<rate_limit_settings> rate_limit;
  // Attempts in flight are bounded by this adaptive limit.
  std::optional<adaptive_limit_settings> adaptive;
  // Retries stay within this share of first attempts.
  std::optional<retry_budget_settings> retry_budget;
};

// The breaker's answer for a delivery's next attempt, as far as it has one.
enum class breaker_pass : std::uint8_t {
  none,           // not asked yet (or a permit that is not held across a wait)
  denied,         // the breaker refused: the delivery is parked until it leaves Open
  granted,        // a permit for this attempt, just granted
  probe_granted,  // a Half-Open probe's permit, just granted
  probe,  // a probe's permit held since: good while the breaker that granted it has not changed
};

// The retry budget's answer for a delivery's next attempt.
enum class budget_pass : std::uint8_t {
  none,     // not asked (or not gated)
  ask,      // refused before: its next attempt asks again
  granted,  // granted, and counted, already
};

// What one delivery holds at the gate for its next attempt. It lives on the delivery; the gate
// reads and writes it.
struct attempt_ticket {
  bool probe = false;  // its attempt sequence is the Half-Open probe (a whole delivery)
  std::uint64_t breaker_generation = 0;  // of the permit of its latest attempt
  breaker_pass permit = breaker_pass::none;
  budget_pass budget = budget_pass::none;
  bool token = false;  // the rate limit's token for its next attempt is taken
};

// Which attempt of its record an attempt is, for the retry budget.
enum class attempt_kind : std::uint8_t {
  first,       // the record's first, from its source topic
  tier_first,  // the first here of a retry tier's record: a retry, which the budget gates here
  retry,       // a later one: the budget gated it when its failure asked (grant_retry)
};

// What an attempt waits for; `nothing`: it goes now.
enum class waiting_for : std::uint8_t {
  nothing,
  permit,        // the breaker's permit: ask it (its answer comes to on_permit)
  breaker,       // the breaker to leave Open (the permit was denied)
  credentials,   // the route's first Authorization value
  retry_budget,  // room in the retry budget (refused now: the attempt cycle decides what next)
  token,         // the rate limit's next token
  slot,          // a slot of the adaptive limit
};

struct admission {
  waiting_for wait = waiting_for::nothing;
  // Going: the attempt is the first of a probe's sequence (its count starts afresh).
  bool probe_begins = false;
  // Waiting for a token: arm the token timer for this long (none: it is armed already).
  std::optional<std::chrono::microseconds> token_timer;
};

class attempt_gate {
 public:
  using time_point = std::chrono::system_clock::time_point;
  // A waiting delivery's ticket; nullptr: it is gone or moving on, and leaves the line.
  using ticket_lookup = std::function<attempt_ticket*(delivery_id)>;

  explicit attempt_gate(attempt_gate_settings settings);

  // -- the question ---------------------------------------------------------------------------

  // May the next attempt of `id` go now, and if not, what is it waiting for? Its ticket says
  // which lines it passed; the gate writes what it passes now. A delivery that waits is in that
  // line until one of the events below hands it back. One that goes has its slot taken, its
  // token spent and its attempt counted in the retry budget.
  admission admit(delivery_id id, attempt_ticket& t, attempt_kind kind, time_point now);

  // The breaker's answer to a permit request, for the next admit.
  static void take_permit(attempt_ticket& t, const breaker_permit& p);

  // A retriable failure asks the retry budget for its retry when it fails, not when its backoff
  // ran out: records failing within one backoff share one room. True: granted (or no budget).
  // False: refused, and the delivery's next attempt asks again.
  bool grant_retry(attempt_ticket& t, time_point now);

  // -- the lines' events ----------------------------------------------------------------------

  // A delivery just parked (admit said `breaker`) leaves the line: it waits elsewhere.
  void withdraw_parked(delivery_id id);

  // The breaker changed state. Leaving Open, the parked deliveries come back, oldest first.
  std::vector<delivery_id> on_breaker_change(breaker_state to, std::uint64_t generation);

  // An answer came: its slot is free and the adaptive limit takes its sample (`now` is the
  // events' wall clock seen as a steady one: the limit only measures windows between answers).
  void on_answer(const attempt_answer& a, time_point now);
  // The next delivery waiting for a slot while one is free.
  std::optional<delivery_id> next_for_slot();

  // The token timer fired.
  void on_token_timer();
  // The next delivery waiting for a token once it has one (its ticket says so), and how long it
  // waited.
  struct token_release {
    delivery_id id{};
    std::chrono::microseconds waited{0};
  };
  std::optional<token_release> next_for_token(time_point now, const ticket_lookup& waiting);
  // Deliveries still wait for a token and no timer is armed: arm it for this long.
  std::optional<std::chrono::microseconds> token_timer(time_point now);

  // This instance's share of the quota (quota_share); no assignment keeps the share it had.
  void set_share(int assigned, int topic_partitions, time_point now);

  // The route's Authorization value, first or changed: the deliveries waiting for credentials
  // come back. Unchanged or empty: nothing.
  std::vector<delivery_id> on_credentials(std::string authorization);

  // -- the breaker's outcomes -----------------------------------------------------------------

  // Whether a delivery's outcome goes to the breaker. While it is known Closed and has been told
  // no failure since the last success, a success would reset a count that is already zero: it is
  // not sent (one message per delivery saved on the hot path). Probes, failures and the success
  // after a failure always go.
  bool tells_breaker(bool success, const attempt_ticket& t);

  // -- observers ------------------------------------------------------------------------------

  [[nodiscard]] bool breaker_open() const { return breaker_open_; }
  [[nodiscard]] std::size_t parked() const { return parked_.size(); }
  [[nodiscard]] const std::string& authorization() const { return authorization_; }
  // Counts the Authorization values the route had.
  [[nodiscard]] std::uint64_t credentials_generation() const { return credentials_generation_; }
  [[nodiscard]] int concurrency_limit() const;
  [[nodiscard]] std::size_t attempts_out() const { return attempts_out_; }
  [[nodiscard]] std::size_t waiting_for_limit() const { return slot_wait_.size(); }
  [[nodiscard]] std::size_t waiting_for_rate() const { return rate_wait_.size(); }
  [[nodiscard]] std::size_t waiting_for_credentials() const { return credentials_wait_.size(); }
  [[nodiscard]] double rate_limit() const;

 private:
  struct rate_waiter {
    delivery_id id{};
    time_point since;
  };

  [[nodiscard]] bool breaker_passes(attempt_ticket& t);
  [[nodiscard]] bool probe_permit_holds(const attempt_ticket& t) const;
  [[nodiscard]] bool budget_passes(attempt_ticket& t, attempt_kind kind, time_point now);
  admission wait_for_token(delivery_id id, const attempt_ticket& t, time_point now);
  admission go(attempt_ticket& t, attempt_kind kind, time_point now);
  token_bucket& bucket(time_point now);
  [[nodiscard]] rate_limit_settings share_of(const rate_limit_settings& q) const;

  attempt_gate_settings settings_;

  // -- the breaker, as its latest change said (unknown before the first) --
  std::optional<breaker_state> breaker_known_;
  std::uint64_t breaker_generation_ = 0;
  bool breaker_open_ = false;
  bool failure_told_ = false;       // a failure went to the breaker since the last success did
  std::deque<delivery_id> parked_;  // denied a permit: waiting for the breaker to leave Open

  // -- credentials --
  std::string authorization_;
  std::uint64_t credentials_generation_ = 0;
  std::deque<delivery_id> credentials_wait_;  // before the first

  // -- the retry budget --
  std::optional<retry_budget> budget_;

  // -- the rate limit --
  std::optional<token_bucket> bucket_;  // made at its first use, at share_ of the quota
  double share_ = 1.0;
  std::deque<rate_waiter> rate_wait_;  // oldest first (a probe first)
  bool token_timer_armed_ = false;

  // -- the adaptive limit --
  std::optional<adaptive_limit> limit_;
  std::size_t attempts_out_ = 0;       // posted, not answered
  std::deque<delivery_id> slot_wait_;  // oldest first (a probe first)
};

}  // namespace courier
