#include "core/delivery/attempt_gate.hpp"

#include <chrono>
#include <vector>

#include <gtest/gtest.h>

namespace courier {
namespace {

using namespace std::chrono_literals;
using time_point = attempt_gate::time_point;

const time_point t0 = time_point{std::chrono::seconds{1'800'000'000}};

delivery_id id_of(std::uint64_t n) { return delivery_id{n}; }

// A gate whose breaker is known Closed at generation 1: no permit round trip.
attempt_gate closed_gate(attempt_gate_settings s = {}) {
  attempt_gate g{std::move(s)};
  (void)g.on_breaker_change(breaker_state::closed, 1);
  return g;
}

TEST(AttemptGate, BeforeTheBreakerIsKnownAnAttemptWaitsForAPermit) {
  attempt_gate g{attempt_gate_settings{}};
  attempt_ticket t;
  EXPECT_EQ(g.admit(id_of(1), t, attempt_kind::first, t0).wait, waiting_for::permit);
  attempt_gate::take_permit(t, breaker_permit{true, false, 4});
  EXPECT_EQ(g.admit(id_of(1), t, attempt_kind::first, t0).wait, waiting_for::nothing);
  EXPECT_EQ(t.breaker_generation, 4U);
  EXPECT_EQ(t.permit, breaker_pass::none) << "a permit is for one attempt";
  EXPECT_EQ(g.attempts_out(), 1U);
}

TEST(AttemptGate, WhileTheBreakerIsKnownClosedAnAttemptGoesWithItsGeneration) {
  auto g = closed_gate();
  attempt_ticket t;
  EXPECT_EQ(g.admit(id_of(1), t, attempt_kind::first, t0).wait, waiting_for::nothing);
  EXPECT_EQ(t.breaker_generation, 1U);
  EXPECT_FALSE(t.probe);
}

TEST(AttemptGate, ADeniedPermitParksTheDeliveryUntilTheBreakerLeavesOpen) {
  attempt_gate g{attempt_gate_settings{}};
  attempt_ticket t;
  attempt_gate::take_permit(t, breaker_permit{false, false, 2});
  EXPECT_EQ(g.admit(id_of(7), t, attempt_kind::first, t0).wait, waiting_for::breaker);
  EXPECT_EQ(g.parked(), 1U);
  EXPECT_TRUE(g.on_breaker_change(breaker_state::open, 3).empty());
  EXPECT_TRUE(g.breaker_open());
  EXPECT_EQ(g.on_breaker_change(breaker_state::half_open, 4), std::vector<delivery_id>{id_of(7)});
  EXPECT_EQ(g.parked(), 0U);
  EXPECT_EQ(g.admit(id_of(7), t, attempt_kind::first, t0).wait, waiting_for::permit)
      << "Half-Open: it asks again";
}

TEST(AttemptGate, AProbeHoldsItsPermitUntilTheBreakerChanges) {
  attempt_gate g{attempt_gate_settings{}};
  (void)g.on_breaker_change(breaker_state::half_open, 5);
  attempt_ticket t;
  attempt_gate::take_permit(t, breaker_permit{true, /*probe=*/true, 5});
  const auto first = g.admit(id_of(1), t, attempt_kind::first, t0);
  EXPECT_EQ(first.wait, waiting_for::nothing);
  EXPECT_TRUE(first.probe_begins);
  EXPECT_TRUE(t.probe);
  g.on_answer(attempt_answer{}, t0);

  const auto again = g.admit(id_of(1), t, attempt_kind::retry, t0);
  EXPECT_EQ(again.wait, waiting_for::nothing) << "no new permit within its sequence";
  EXPECT_FALSE(again.probe_begins);
  g.on_answer(attempt_answer{}, t0);

  (void)g.on_breaker_change(breaker_state::open, 6);
  EXPECT_EQ(g.admit(id_of(1), t, attempt_kind::retry, t0).wait, waiting_for::permit);
  EXPECT_FALSE(t.probe) << "the breaker moved on: it asks like any other";
}

TEST(AttemptGate, NothingGoesBeforeTheFirstCredentials) {
  attempt_gate_settings s;
  s.authenticated = true;
  auto g = closed_gate(s);
  attempt_ticket a;
  attempt_ticket b;
  EXPECT_EQ(g.admit(id_of(1), a, attempt_kind::first, t0).wait, waiting_for::credentials);
  EXPECT_EQ(g.admit(id_of(2), b, attempt_kind::first, t0).wait, waiting_for::credentials);
  EXPECT_EQ(g.waiting_for_credentials(), 2U);
  EXPECT_EQ(g.on_credentials("Bearer one"), (std::vector<delivery_id>{id_of(1), id_of(2)}));
  EXPECT_EQ(g.authorization(), "Bearer one");
  EXPECT_EQ(g.credentials_generation(), 1U);
  EXPECT_TRUE(g.on_credentials("Bearer one").empty()) << "unchanged";
  EXPECT_TRUE(g.on_credentials("").empty()) << "empty";
  EXPECT_EQ(g.credentials_generation(), 1U);
  EXPECT_EQ(g.admit(id_of(1), a, attempt_kind::first, t0).wait, waiting_for::nothing);
}

// A rate limit of 10 a second with a burst of 1: one token every tenth of a second.
attempt_gate rate_limited_gate() {
  attempt_gate_settings s;
  s.rate_limit = rate_limit_settings{10, 1};
  return closed_gate(s);
}

TEST(AttemptGate, WithoutATokenAnAttemptWaitsAndTheTimerIsArmedOnce) {
  auto g = rate_limited_gate();
  attempt_ticket a;
  attempt_ticket b;
  attempt_ticket c;
  EXPECT_EQ(g.admit(id_of(1), a, attempt_kind::first, t0).wait, waiting_for::nothing);
  const auto second = g.admit(id_of(2), b, attempt_kind::first, t0);
  EXPECT_EQ(second.wait, waiting_for::token);
  EXPECT_EQ(second.token_timer, std::optional<std::chrono::microseconds>{100ms});
  const auto third = g.admit(id_of(3), c, attempt_kind::first, t0);
  EXPECT_EQ(third.wait, waiting_for::token);
  EXPECT_FALSE(third.token_timer) << "armed already";
  EXPECT_EQ(g.waiting_for_rate(), 2U);

  g.on_token_timer();
  const auto lookup = [&](delivery_id id) -> attempt_ticket* { return id == id_of(2) ? &b : &c; };
  const auto next = g.next_for_token(t0 + 100ms, lookup);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->id, id_of(2));
  EXPECT_EQ(next->waited, 100ms);
  EXPECT_TRUE(b.token);
  EXPECT_FALSE(g.next_for_token(t0 + 100ms, lookup)) << "one token a tenth of a second";
  EXPECT_EQ(g.token_timer(t0 + 100ms), std::optional<std::chrono::microseconds>{100ms});
  EXPECT_EQ(g.admit(id_of(2), b, attempt_kind::first, t0 + 100ms).wait, waiting_for::nothing);
  EXPECT_FALSE(b.token) << "spent";
}

TEST(AttemptGate, ADeliveryGoneFromItsLineTakesNoToken) {
  auto g = rate_limited_gate();
  std::vector<attempt_ticket> t(3);
  for (std::uint64_t i = 0; i < 3; ++i) {
    (void)g.admit(id_of(i + 1), t[i], attempt_kind::first, t0);
  }
  auto& c = t[2];
  g.on_token_timer();
  const auto next = g.next_for_token(
      t0 + 100ms, [&](delivery_id id) -> attempt_ticket* { return id == id_of(2) ? nullptr : &c; });
  ASSERT_TRUE(next);
  EXPECT_EQ(next->id, id_of(3));
  EXPECT_EQ(g.waiting_for_rate(), 0U);
}

TEST(AttemptGate, TheQuotaShareScalesTheRate) {
  attempt_gate_settings s;
  s.rate_limit = rate_limit_settings{8, 8};
  auto g = closed_gate(s);
  EXPECT_EQ(g.rate_limit(), 8);
  g.set_share(2, 8, t0);
  EXPECT_EQ(g.rate_limit(), 2);
  g.set_share(0, 8, t0);
  EXPECT_EQ(g.rate_limit(), 2) << "no assignment keeps the share";
}

TEST(AttemptGate, OverTheAdaptiveLimitAnAttemptWaitsForASlotAndAProbeGoesFirst) {
  attempt_gate_settings s;
  adaptive_limit_settings a;
  a.min_limit = 1;
  a.max_limit = 8;
  a.initial_limit = 1;
  s.adaptive = a;
  attempt_gate g{s};
  (void)g.on_breaker_change(breaker_state::half_open, 3);
  attempt_ticket first;
  attempt_gate::take_permit(first, breaker_permit{true, false, 3});
  EXPECT_EQ(g.admit(id_of(1), first, attempt_kind::first, t0).wait, waiting_for::nothing);
  attempt_ticket other;
  attempt_gate::take_permit(other, breaker_permit{true, false, 3});
  EXPECT_EQ(g.admit(id_of(2), other, attempt_kind::first, t0).wait, waiting_for::slot);
  EXPECT_EQ(other.permit, breaker_pass::none) << "a plain permit is not held across a wait";
  attempt_ticket probe;
  attempt_gate::take_permit(probe, breaker_permit{true, true, 3});
  EXPECT_EQ(g.admit(id_of(3), probe, attempt_kind::first, t0).wait, waiting_for::slot);
  EXPECT_EQ(probe.permit, breaker_pass::probe) << "a probe's permit is";
  EXPECT_EQ(g.waiting_for_limit(), 2U);
  EXPECT_FALSE(g.next_for_slot()) << "no slot free";

  attempt_answer rejected;  // an answer that moves the limit neither way
  rejected.status = 400;
  rejected.duration = 20ms;
  g.on_answer(rejected, t0 + 20ms);
  EXPECT_EQ(g.next_for_slot(), std::optional<delivery_id>{id_of(3)});
  const auto went = g.admit(id_of(3), probe, attempt_kind::first, t0 + 20ms);
  EXPECT_EQ(went.wait, waiting_for::nothing);
  EXPECT_TRUE(went.probe_begins);
  EXPECT_FALSE(g.next_for_slot()) << "the probe took it";
}

TEST(AttemptGate, TheRetryBudgetGatesATierRecordsFirstAttemptAndAsksAgainAfterARefusal) {
  attempt_gate_settings s;
  s.retry_budget = retry_budget_settings{0, 10s, 0};
  auto g = closed_gate(s);
  attempt_ticket t;
  EXPECT_EQ(g.admit(id_of(1), t, attempt_kind::tier_first, t0).wait, waiting_for::retry_budget);
  EXPECT_EQ(t.budget, budget_pass::ask);
  EXPECT_EQ(g.admit(id_of(1), t, attempt_kind::retry, t0).wait, waiting_for::retry_budget)
      << "refused before: it asks again";
  EXPECT_EQ(g.attempts_out(), 0U);
  attempt_ticket first;
  EXPECT_EQ(g.admit(id_of(2), first, attempt_kind::first, t0).wait, waiting_for::nothing)
      << "a first attempt is never gated";
}

TEST(AttemptGate, ARetryGrantedAtItsFailureIsNotAskedAgain) {
  attempt_gate_settings s;
  s.retry_budget = retry_budget_settings{0.5, 10s, 0};
  auto g = closed_gate(s);
  std::vector<attempt_ticket> t(3);
  for (std::uint64_t i = 0; i < 2; ++i) {
    EXPECT_EQ(g.admit(id_of(i), t[i], attempt_kind::first, t0).wait, waiting_for::nothing);
  }
  EXPECT_TRUE(g.grant_retry(t[0], t0));
  EXPECT_EQ(t[0].budget, budget_pass::granted);
  EXPECT_FALSE(g.grant_retry(t[1], t0)) << "two first attempts: room for one retry";
  EXPECT_EQ(t[1].budget, budget_pass::ask);
  EXPECT_EQ(g.admit(id_of(0), t[0], attempt_kind::retry, t0).wait, waiting_for::nothing);
  EXPECT_EQ(t[0].budget, budget_pass::none);
}

TEST(AttemptGate, ASuccessWhileClosedWithNoFailureToldIsNotSentToTheBreaker) {
  auto g = closed_gate();
  attempt_ticket t;
  t.breaker_generation = 1;
  EXPECT_FALSE(g.tells_breaker(/*success=*/true, t));
  EXPECT_TRUE(g.tells_breaker(/*success=*/false, t));
  EXPECT_TRUE(g.tells_breaker(/*success=*/true, t)) << "the success after a failure";
  EXPECT_FALSE(g.tells_breaker(/*success=*/true, t));
  attempt_ticket probe = t;
  probe.probe = true;
  EXPECT_TRUE(g.tells_breaker(/*success=*/true, probe)) << "a probe's outcome always goes";
  attempt_ticket stale;
  stale.breaker_generation = 0;
  EXPECT_TRUE(g.tells_breaker(/*success=*/false, stale));
  EXPECT_FALSE(g.tells_breaker(/*success=*/true, t)) << "a stale failure counts nothing";
}

}  // namespace
}  // namespace courier
