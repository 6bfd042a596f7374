#include "core/delivery/breaker.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>

namespace courier {
namespace {

using std::chrono::milliseconds;
using clock_type = breaker::clock;

const clock_type::time_point t0{std::chrono::hours{1}};

breaker_settings settings(int trip_after, milliseconds open_timeout, int max_probes = 1) {
  breaker_settings s;
  s.trip_after = trip_after;
  s.open_timeout = open_timeout;
  s.half_open_max_requests = max_probes;
  return s;
}

void expect_transition(const std::optional<breaker_transition>& t, breaker_state from,
                       breaker_state to) {
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->from, from);
  EXPECT_EQ(t->to, to);
}

// Opens a fresh breaker with trip_after failures at `at`.
breaker opened(breaker_settings s, clock_type::time_point at) {
  breaker b{s};
  for (int i = 0; i < s.trip_after; ++i) {
    (void)b.on_failure(at);
  }
  return b;
}

TEST(Breaker, DefaultsMatchTheDesign) {
  const breaker_settings s;
  EXPECT_EQ(s.trip_after, 5);
  EXPECT_EQ(s.open_timeout, milliseconds{15000});
  EXPECT_EQ(s.half_open_max_requests, 1);
  EXPECT_EQ(s.gone_probe_interval, milliseconds{300000});
  EXPECT_EQ(s.max_retry_after_hold, milliseconds{600000});
}

// An announced maintenance (503, Retry-After: 3600) is not probed every open_timeout: the Open
// lasts what the receiver asked for with the failures that tripped it, up to
// max_retry_after_hold; a shorter Retry-After leaves open_timeout in charge.
TEST(Breaker, TheRetryAfterOfTheFailuresThatTripItKeepsItOpenThatLong) {
  breaker b{settings(3, milliseconds{1000})};
  (void)b.on_failure(t0, milliseconds{120'000});  // the longest of the three counts
  (void)b.on_failure(t0);
  expect_transition(b.on_failure(t0 + milliseconds{5}, milliseconds{500}), breaker_state::closed,
                    breaker_state::open);
  EXPECT_EQ(b.next_probe_at(), t0 + milliseconds{5} + milliseconds{120'000});
  EXPECT_EQ(b.on_open_timeout(t0 + milliseconds{1005}), std::nullopt);
  expect_transition(b.on_open_timeout(t0 + milliseconds{120'005}), breaker_state::open,
                    breaker_state::half_open);

  // The probe fails with a Retry-After over the cap: Open for the cap.
  auto s = settings(3, milliseconds{1000});
  s.max_retry_after_hold = milliseconds{600'000};
  breaker c = opened(s, t0);
  EXPECT_EQ(c.next_probe_at(), t0 + milliseconds{1000}) << "no Retry-After: open_timeout";
  (void)c.on_open_timeout(t0 + milliseconds{1000});
  ASSERT_TRUE(c.try_acquire(t0 + milliseconds{1000}));
  expect_transition(c.on_failure(t0 + milliseconds{1100}, std::chrono::hours{2}),
                    breaker_state::half_open, breaker_state::open);
  EXPECT_EQ(c.next_probe_at(), t0 + milliseconds{1100} + milliseconds{600'000});

  // Closed again, the next trip owes nothing to the earlier Retry-After.
  (void)c.on_open_timeout(t0 + milliseconds{601'100});
  ASSERT_TRUE(c.try_acquire(t0 + milliseconds{601'100}));
  (void)c.on_success(t0 + milliseconds{601'200});
  ASSERT_EQ(c.state(), breaker_state::closed);
  for (int i = 0; i < 3; ++i) {
    (void)c.on_failure(t0 + milliseconds{700'000});
  }
  EXPECT_EQ(c.next_probe_at(), t0 + milliseconds{701'000});
}

TEST(Breaker, StartsClosedAndLetsEverythingThrough) {
  breaker b{breaker_settings{}};
  EXPECT_EQ(b.state(), breaker_state::closed);
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(b.try_acquire(t0));
  }
  EXPECT_EQ(b.trips(), 0U);
}

TEST(Breaker, OpensAfterTripAfterConsecutiveFailures) {
  breaker b{settings(3, milliseconds{1000})};
  EXPECT_EQ(b.on_failure(t0), std::nullopt);
  EXPECT_EQ(b.on_failure(t0), std::nullopt);
  EXPECT_EQ(b.consecutive_failures(), 2);
  expect_transition(b.on_failure(t0 + milliseconds{5}), breaker_state::closed, breaker_state::open);
  EXPECT_EQ(b.state(), breaker_state::open);
  EXPECT_EQ(b.opened_at(), t0 + milliseconds{5});
  EXPECT_EQ(b.trips(), 1U);
}

// The Open's log line names its reason: a TLS failure's is otherwise only in the tier records.
TEST(Breaker, KeepsTheFailureThatOpenedIt) {
  breaker b{settings(2, milliseconds{1000})};
  EXPECT_EQ(b.last_failure().error_class, "");
  (void)b.on_failure(t0, milliseconds{0}, breaker_failure{"http_503", "the receiver answered 503"});
  const std::string tls = "certificate verify failed: unable to get local issuer certificate";
  expect_transition(b.on_failure(t0, milliseconds{0}, breaker_failure{"tls", tls}),
                    breaker_state::closed, breaker_state::open);
  EXPECT_EQ(b.last_failure().error_class, "tls");
  EXPECT_EQ(b.last_failure().message, tls);
  (void)b.on_failure(t0, milliseconds{0}, breaker_failure{"timeout", "late"});
  EXPECT_EQ(b.last_failure().error_class, "tls") << "a failure Open ignores does not replace it";

  (void)b.on_open_timeout(t0 + milliseconds{1000});
  expect_transition(b.on_failure(t0 + milliseconds{1000}, milliseconds{0},
                                 breaker_failure{"connect", "connection refused"}),
                    breaker_state::half_open, breaker_state::open);
  EXPECT_EQ(b.last_failure().error_class, "connect") << "the failed probe opened it again";
  EXPECT_EQ(b.last_failure().message, "connection refused");
}

TEST(Breaker, ASuccessResetsTheConsecutiveFailures) {
  breaker b{settings(3, milliseconds{1000})};
  (void)b.on_failure(t0);
  (void)b.on_failure(t0);
  EXPECT_EQ(b.on_success(t0), std::nullopt);
  EXPECT_EQ(b.consecutive_failures(), 0);
  EXPECT_EQ(b.on_failure(t0), std::nullopt);
  EXPECT_EQ(b.on_failure(t0), std::nullopt);
  EXPECT_EQ(b.state(), breaker_state::closed);
}

TEST(Breaker, OpenRefusesEveryRequest) {
  breaker b = opened(settings(2, milliseconds{1000}), t0);
  EXPECT_FALSE(b.try_acquire(t0));
  // Even after the timeout: moving to half-open is on_open_timeout's job.
  EXPECT_FALSE(b.try_acquire(t0 + milliseconds{5000}));
  EXPECT_EQ(b.state(), breaker_state::open);
}

TEST(Breaker, OpenIgnoresLateResults) {
  breaker b = opened(settings(2, milliseconds{1000}), t0);
  EXPECT_EQ(b.on_failure(t0 + milliseconds{10}), std::nullopt);
  EXPECT_EQ(b.on_success(t0 + milliseconds{20}), std::nullopt);
  EXPECT_EQ(b.state(), breaker_state::open);
  EXPECT_EQ(b.opened_at(), t0);
  EXPECT_EQ(b.trips(), 1U);
}

TEST(Breaker, StaysOpenUntilTheOpenTimeoutHasPassed) {
  breaker b = opened(settings(1, milliseconds{1000}), t0);
  EXPECT_EQ(b.on_open_timeout(t0 + milliseconds{999}), std::nullopt);
  EXPECT_EQ(b.state(), breaker_state::open);
  expect_transition(b.on_open_timeout(t0 + milliseconds{1000}), breaker_state::open,
                    breaker_state::half_open);
  EXPECT_EQ(b.state(), breaker_state::half_open);
}

TEST(Breaker, EveryTransitionStartsANewGenerationAndNothingElseDoes) {
  breaker b{settings(2, milliseconds{1000})};
  EXPECT_EQ(b.generation(), 0U);
  (void)b.on_failure(t0);
  (void)b.on_success(t0);
  EXPECT_EQ(b.generation(), 0U) << "no transition yet";
  (void)b.on_failure(t0);
  (void)b.on_failure(t0);
  EXPECT_EQ(b.generation(), 1U) << "closed -> open";
  (void)b.on_open_timeout(t0 + milliseconds{1000});
  EXPECT_EQ(b.generation(), 2U) << "open -> half-open";
  ASSERT_TRUE(b.try_acquire(t0 + milliseconds{1000}));
  (void)b.on_success(t0 + milliseconds{1000});
  EXPECT_EQ(b.generation(), 3U) << "half-open -> closed";
}

TEST(Breaker, OpenTimeoutOutsideOpenDoesNothing) {
  breaker b{settings(1, milliseconds{1000})};
  EXPECT_EQ(b.on_open_timeout(t0 + milliseconds{5000}), std::nullopt);
  EXPECT_EQ(b.state(), breaker_state::closed);
  (void)b.on_failure(t0);
  (void)b.on_open_timeout(t0 + milliseconds{1000});
  EXPECT_EQ(b.on_open_timeout(t0 + milliseconds{9000}), std::nullopt);
  EXPECT_EQ(b.state(), breaker_state::half_open);
}

TEST(Breaker, HalfOpenLetsExactlyOneProbeThrough) {
  breaker b = opened(settings(1, milliseconds{1000}), t0);
  (void)b.on_open_timeout(t0 + milliseconds{1000});
  EXPECT_TRUE(b.try_acquire(t0 + milliseconds{1001}));
  EXPECT_FALSE(b.try_acquire(t0 + milliseconds{1002}));
  EXPECT_FALSE(b.try_acquire(t0 + milliseconds{1003}));
  EXPECT_EQ(b.outstanding_probes(), 1);
}

TEST(Breaker, HalfOpenLetsAsManyProbesAsConfigured) {
  breaker b = opened(settings(1, milliseconds{1000}, 3), t0);
  (void)b.on_open_timeout(t0 + milliseconds{1000});
  EXPECT_TRUE(b.try_acquire(t0));
  EXPECT_TRUE(b.try_acquire(t0));
  EXPECT_TRUE(b.try_acquire(t0));
  EXPECT_FALSE(b.try_acquire(t0));
}

TEST(Breaker, ASuccessfulProbeClosesTheBreaker) {
  breaker b = opened(settings(2, milliseconds{1000}), t0);
  (void)b.on_open_timeout(t0 + milliseconds{1000});
  ASSERT_TRUE(b.try_acquire(t0 + milliseconds{1000}));
  expect_transition(b.on_success(t0 + milliseconds{1100}), breaker_state::half_open,
                    breaker_state::closed);
  EXPECT_EQ(b.state(), breaker_state::closed);
  EXPECT_EQ(b.consecutive_failures(), 0);
  EXPECT_TRUE(b.try_acquire(t0 + milliseconds{1200}));
  EXPECT_EQ(b.trips(), 1U);
}

TEST(Breaker, AFailedProbeOpensTheBreakerAgainWithANewTimeout) {
  breaker b = opened(settings(2, milliseconds{1000}), t0);
  (void)b.on_open_timeout(t0 + milliseconds{1000});
  ASSERT_TRUE(b.try_acquire(t0 + milliseconds{1000}));
  expect_transition(b.on_failure(t0 + milliseconds{1500}), breaker_state::half_open,
                    breaker_state::open);
  EXPECT_EQ(b.opened_at(), t0 + milliseconds{1500});
  EXPECT_EQ(b.trips(), 2U);
  EXPECT_EQ(b.on_open_timeout(t0 + milliseconds{2000}), std::nullopt);
  expect_transition(b.on_open_timeout(t0 + milliseconds{2500}), breaker_state::open,
                    breaker_state::half_open);
}

TEST(Breaker, AClosedBreakerCountsFailuresAfreshAfterAProbeSucceeded) {
  breaker b = opened(settings(2, milliseconds{1000}), t0);
  (void)b.on_open_timeout(t0 + milliseconds{1000});
  (void)b.try_acquire(t0);
  (void)b.on_success(t0 + milliseconds{1000});
  EXPECT_EQ(b.on_failure(t0 + milliseconds{1100}), std::nullopt);
  expect_transition(b.on_failure(t0 + milliseconds{1200}), breaker_state::closed,
                    breaker_state::open);
}

TEST(Breaker, AReleasedProbeFreesItsPermit) {
  breaker b = opened(settings(1, milliseconds{1000}), t0);
  (void)b.on_open_timeout(t0 + milliseconds{1000});
  ASSERT_TRUE(b.try_acquire(t0));
  ASSERT_FALSE(b.try_acquire(t0));
  b.release();
  EXPECT_EQ(b.outstanding_probes(), 0);
  EXPECT_TRUE(b.try_acquire(t0));
}

TEST(Breaker, ReleaseWithoutAPermitOutIsHarmless) {
  breaker b = opened(settings(1, milliseconds{1000}), t0);
  (void)b.on_open_timeout(t0 + milliseconds{1000});
  b.release();
  b.release();
  EXPECT_EQ(b.outstanding_probes(), 0);
  EXPECT_TRUE(b.try_acquire(t0));
  EXPECT_FALSE(b.try_acquire(t0));
}

TEST(Breaker, PermitsFromAnEarlierHalfOpenDoNotCarryOver) {
  breaker b = opened(settings(1, milliseconds{1000}), t0);
  (void)b.on_open_timeout(t0 + milliseconds{1000});
  ASSERT_TRUE(b.try_acquire(t0));
  (void)b.on_failure(t0 + milliseconds{1100});  // the probe failed: open again
  // A stale release from the old generation must not give a second permit later.
  b.release();
  (void)b.on_open_timeout(t0 + milliseconds{2100});
  EXPECT_TRUE(b.try_acquire(t0));
  EXPECT_FALSE(b.try_acquire(t0));
}

TEST(Breaker, NonPositiveSettingsBehaveLikeOne) {
  breaker b{settings(0, milliseconds{1000}, 0)};
  EXPECT_EQ(b.settings().trip_after, 1);
  EXPECT_EQ(b.settings().half_open_max_requests, 1);
  expect_transition(b.on_failure(t0), breaker_state::closed, breaker_state::open);
  (void)b.on_open_timeout(t0 + milliseconds{1000});
  EXPECT_TRUE(b.try_acquire(t0));
  EXPECT_FALSE(b.try_acquire(t0));
}

TEST(Breaker, GoneOpensAtOnceWhateverTheFailureCount) {
  breaker b{settings(5, milliseconds{1000})};
  expect_transition(b.on_gone(t0), breaker_state::closed, breaker_state::open);
  EXPECT_TRUE(b.gone());
  EXPECT_FALSE(b.try_acquire(t0));
  EXPECT_EQ(b.trips(), 1U);
}

TEST(Breaker, GoneStaysOpenForTheGoneProbeIntervalNotTheOpenTimeout) {
  auto s = settings(5, milliseconds{1000});
  s.gone_probe_interval = milliseconds{60000};
  breaker b{s};
  (void)b.on_gone(t0);
  EXPECT_EQ(b.next_probe_at(), t0 + milliseconds{60000});
  EXPECT_EQ(b.on_open_timeout(t0 + milliseconds{1000}), std::nullopt);
  EXPECT_EQ(b.on_open_timeout(t0 + milliseconds{59999}), std::nullopt);
  expect_transition(b.on_open_timeout(t0 + milliseconds{60000}), breaker_state::open,
                    breaker_state::half_open);
  EXPECT_TRUE(b.gone()) << "only a successful probe clears it";
}

TEST(Breaker, GoneWithAZeroProbeIntervalNeverProbes) {
  auto s = settings(5, milliseconds{1000});
  s.gone_probe_interval = milliseconds{0};
  breaker b{s};
  (void)b.on_gone(t0);
  EXPECT_EQ(b.next_probe_at(), std::nullopt);
  EXPECT_EQ(b.on_open_timeout(t0 + std::chrono::hours{24 * 365}), std::nullopt);
  EXPECT_EQ(b.state(), breaker_state::open);
}

TEST(Breaker, AGoneProbeThatFailsAgainOpensForAnotherInterval) {
  auto s = settings(5, milliseconds{1000});
  s.gone_probe_interval = milliseconds{10000};
  breaker b{s};
  (void)b.on_gone(t0);
  (void)b.on_open_timeout(t0 + milliseconds{10000});
  ASSERT_TRUE(b.try_acquire(t0 + milliseconds{10000}));
  expect_transition(b.on_gone(t0 + milliseconds{10001}), breaker_state::half_open,
                    breaker_state::open);
  EXPECT_EQ(b.next_probe_at(), t0 + milliseconds{20001});
}

TEST(Breaker, ASuccessfulProbeClearsGone) {
  auto s = settings(5, milliseconds{1000});
  s.gone_probe_interval = milliseconds{10000};
  breaker b{s};
  (void)b.on_gone(t0);
  (void)b.on_open_timeout(t0 + milliseconds{10000});
  ASSERT_TRUE(b.try_acquire(t0 + milliseconds{10000}));
  expect_transition(b.on_success(t0 + milliseconds{10001}), breaker_state::half_open,
                    breaker_state::closed);
  EXPECT_FALSE(b.gone());
  // Back to the ordinary rules: trip_after failures, then open_timeout.
  for (int i = 0; i < 5; ++i) {
    (void)b.on_failure(t0 + milliseconds{20000});
  }
  EXPECT_EQ(b.next_probe_at(), t0 + milliseconds{21000});
}

TEST(Breaker, GoneWhileAlreadyOpenKeepsItOpenForTheGoneInterval) {
  auto s = settings(1, milliseconds{1000});
  s.gone_probe_interval = milliseconds{10000};
  breaker b{s};
  (void)b.on_failure(t0);
  EXPECT_EQ(b.on_gone(t0 + milliseconds{10}), std::nullopt);
  EXPECT_EQ(b.on_open_timeout(t0 + milliseconds{1000}), std::nullopt);
  EXPECT_EQ(b.next_probe_at(), t0 + milliseconds{10000});
}

TEST(Breaker, SeveralEndpointsAreOpenTogetherOnlyWhenEveryOneIs) {
  using b = breaker_state;
  EXPECT_EQ(joint_state({b::open}, 1), b::open) << "one endpoint: its breaker's state";
  EXPECT_EQ(joint_state({b::half_open}, 1), b::half_open);
  EXPECT_EQ(joint_state({b::open, b::open}, 3), b::closed) << "one has not reported: Closed";
  EXPECT_EQ(joint_state({b::open, b::open, b::open}, 3), b::open);
  EXPECT_EQ(joint_state({b::open, b::closed, b::open}, 3), b::closed);
  EXPECT_EQ(joint_state({b::open, b::half_open, b::open}, 3), b::half_open);
}

TEST(Breaker, NamesItsStates) {
  EXPECT_EQ(to_string(breaker_state::closed), "closed");
  EXPECT_EQ(to_string(breaker_state::open), "open");
  EXPECT_EQ(to_string(breaker_state::half_open), "half_open");
}

}  // namespace
}  // namespace courier
