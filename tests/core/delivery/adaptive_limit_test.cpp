#include "core/delivery/adaptive_limit.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include <gtest/gtest.h>

namespace courier {
namespace {

using namespace std::chrono_literals;
using clock_type = adaptive_limit::clock;

const clock_type::time_point t0{std::chrono::hours{1}};

adaptive_limit_settings settings(int min_limit, int max_limit, int initial) {
  adaptive_limit_settings s;
  s.min_limit = min_limit;
  s.max_limit = max_limit;
  s.initial_limit = initial;
  return s;
}

// `n` successes of `latency` answered at `at`, with the whole limit in flight.
void succeed(adaptive_limit& l, int n, clock_type::duration latency, clock_type::time_point at) {
  for (int i = 0; i < n; ++i) {
    (void)l.on_sample(latency, sample_kind::success, l.limit(), at);
  }
}

// -- a simulated receiver ---------------------------------------------------------------------

// Serves `capacity` attempts at once in `latency`. Above that it queues: an attempt that finds
// n in service, itself included, takes latency x n / capacity (processor sharing), unless n is
// above capacity + queue: then it answers 503 in 1 ms without being served.
struct receiver {
  int capacity = 20;
  int queue = 0;
  clock_type::duration latency = 100ms;
};

// The lowest and highest limit a simulation saw, and after how many answers.
struct observed {
  int lowest = std::numeric_limits<int>::max();
  int highest = std::numeric_limits<int>::min();
  int samples = 0;
};

// A route that always has records waiting, limited by `limit`, talking to `rx`.
class simulation {
 public:
  simulation(adaptive_limit& limit, receiver& rx) : limit_(limit), rx_(rx) { fill(); }

  // Answers attempts until `end` and returns the limits seen from `observe_from` on.
  observed run_until(clock_type::time_point end, clock_type::time_point observe_from) {
    observed seen;
    while (!out_.empty() && out_.begin()->first <= end) {
      const auto it = out_.begin();
      now_ = it->first;
      const attempt a = it->second;
      (void)limit_.on_sample(a.latency, a.kind, static_cast<int>(out_.size()), now_);
      out_.erase(it);
      if (a.kind == sample_kind::success) {
        --in_service_;
      }
      fill();
      if (now_ >= observe_from) {
        seen.lowest = std::min(seen.lowest, limit_.limit());
        seen.highest = std::max(seen.highest, limit_.limit());
        ++seen.samples;
      }
    }
    return seen;
  }

 private:
  struct attempt {
    clock_type::duration latency;
    sample_kind kind;
  };

  void fill() {
    while (limit_.may_start(static_cast<int>(out_.size()))) {
      const int n = in_service_ + 1;
      if (n > rx_.capacity + rx_.queue) {
        out_.emplace(now_ + 1ms, attempt{1ms, sample_kind::overload});
        continue;
      }
      ++in_service_;
      const auto took = n <= rx_.capacity ? rx_.latency : rx_.latency * n / rx_.capacity;
      out_.emplace(now_ + took, attempt{took, sample_kind::success});
    }
  }

  adaptive_limit& limit_;
  receiver& rx_;
  clock_type::time_point now_ = t0;
  int in_service_ = 0;
  std::multimap<clock_type::time_point, attempt> out_;  // by answer time
};

// Runs `s` against `rx` for 80 s and expects the limit of the last 60 s in [0.7C, 1.3C].
void expect_settles_near_capacity(const adaptive_limit_settings& s, receiver rx) {
  adaptive_limit limit{s};
  simulation sim{limit, rx};
  const observed seen = sim.run_until(t0 + 80s, t0 + 20s);
  // A route that keeps about C attempts of 100 ms out answers about 10 C a second.
  EXPECT_GT(seen.samples, 60 * 10 * rx.capacity / 2) << "capacity " << rx.capacity;
  EXPECT_GE(seen.lowest, 0.7 * rx.capacity) << "capacity " << rx.capacity;
  EXPECT_LE(seen.highest, 1.3 * rx.capacity) << "capacity " << rx.capacity;
}

// -- settings -----------------------------------------------------------------------------------

TEST(AdaptiveLimit, StartsAtTheInitialLimitClampedIntoMinAndMax) {
  EXPECT_EQ(adaptive_limit{settings(1, 64, 8)}.limit(), 8);
  EXPECT_EQ(adaptive_limit{settings(4, 64, 2)}.limit(), 4);
  EXPECT_EQ(adaptive_limit{settings(1, 16, 100)}.limit(), 16);
}

TEST(AdaptiveLimit, NonsensicalSettingsCountAsTheNearestSensibleOnes) {
  adaptive_limit_settings s = settings(0, -5, 3);
  s.additive_increase = 0;
  s.decrease_factor = 1.5;
  s.latency_tolerance = 0.5;
  s.cooldown = -1s;
  s.baseline_window = 0ms;
  const adaptive_limit l{s};
  EXPECT_EQ(l.settings().min_limit, 1);
  EXPECT_EQ(l.settings().max_limit, 1);
  EXPECT_EQ(l.limit(), 1);
  EXPECT_EQ(l.settings().additive_increase, 1);
  EXPECT_DOUBLE_EQ(l.settings().decrease_factor, 0.9);
  EXPECT_DOUBLE_EQ(l.settings().latency_tolerance, 1.0);
  EXPECT_EQ(l.settings().cooldown, 0ms);
  EXPECT_EQ(l.settings().baseline_window, 1ms);
}

TEST(AdaptiveLimit, MayStartWhileFewerThanTheLimitAreInFlight) {
  const adaptive_limit l{settings(1, 64, 3)};
  EXPECT_TRUE(l.may_start(0));
  EXPECT_TRUE(l.may_start(2));
  EXPECT_FALSE(l.may_start(3));
  EXPECT_FALSE(l.may_start(4));
}

// -- growth -------------------------------------------------------------------------------------

TEST(AdaptiveLimit, GrowsByTheIncreaseAfterALimitsWorthOfSuccesses) {
  adaptive_limit l{settings(1, 64, 4)};
  succeed(l, 3, 100ms, t0);
  EXPECT_EQ(l.limit(), 4);
  const auto change = l.on_sample(100ms, sample_kind::success, 4, t0);
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->from, 4);
  EXPECT_EQ(change->to, 5);
  EXPECT_EQ(change->cause, limit_cause::successes);
  succeed(l, 4, 100ms, t0);
  EXPECT_EQ(l.limit(), 5) << "the next step takes 5 successes";
  succeed(l, 1, 100ms, t0);
  EXPECT_EQ(l.limit(), 6);
  EXPECT_EQ(l.counts().increases, 2U);
}

TEST(AdaptiveLimit, DoesNotGrowWhileLessThanHalfTheLimitIsInUse) {
  adaptive_limit l{settings(1, 64, 10)};
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(l.on_sample(100ms, sample_kind::success, 4, t0), std::nullopt);
  }
  EXPECT_EQ(l.limit(), 10);
  succeed(l, 10, 100ms, t0);
  EXPECT_EQ(l.limit(), 11);
}

TEST(AdaptiveLimit, NeverGrowsAboveTheMaximum) {
  adaptive_limit_settings s = settings(1, 6, 4);
  s.additive_increase = 3;
  adaptive_limit l{s};
  succeed(l, 1000, 100ms, t0);
  EXPECT_EQ(l.limit(), 6);
}

TEST(AdaptiveLimit, ASuccessWithinTheToleranceCountsTowardGrowth) {
  adaptive_limit l{settings(1, 64, 2)};  // tolerance 1.5
  succeed(l, 1, 100ms, t0);
  EXPECT_EQ(l.on_sample(150ms, sample_kind::success, 2, t0).value().to, 3);
}

// -- cuts ---------------------------------------------------------------------------------------

TEST(AdaptiveLimit, AnOverloadCutsMultiplicatively) {
  adaptive_limit l{settings(1, 64, 20)};
  const auto change = l.on_sample(10ms, sample_kind::overload, 20, t0);
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->from, 20);
  EXPECT_EQ(change->to, 18);
  EXPECT_EQ(change->cause, limit_cause::overload);
  EXPECT_EQ(l.last_cut(), t0);
  EXPECT_EQ(l.counts().overload_cuts, 1U);
}

TEST(AdaptiveLimit, ACutTakesAtLeastOne) {
  adaptive_limit l{settings(1, 64, 5)};
  (void)l.on_sample(10ms, sample_kind::overload, 5, t0);
  EXPECT_EQ(l.limit(), 4);
  (void)l.on_sample(10ms, sample_kind::overload, 4, t0 + 1s);
  EXPECT_EQ(l.limit(), 3);
}

TEST(AdaptiveLimit, ABurstOfOverloadsSentUnderTheSameLimitCutsOnce) {
  adaptive_limit l{settings(1, 64, 20)};
  // 50 attempts sent in the 100 ms before t0 answer 503 after 100 ms each.
  for (int i = 0; i < 50; ++i) {
    (void)l.on_sample(100ms, sample_kind::overload, 20, t0 + i * 2ms);
  }
  EXPECT_EQ(l.limit(), 18);
  EXPECT_EQ(l.counts().overload_cuts, 1U);
  // An attempt sent after the cut is refused too: the new limit is still too high.
  (void)l.on_sample(100ms, sample_kind::overload, 18, t0 + 100ms);
  EXPECT_EQ(l.limit(), 16);
}

TEST(AdaptiveLimit, TheCooldownSpacesCuts) {
  adaptive_limit_settings s = settings(1, 64, 20);
  s.cooldown = 1s;
  adaptive_limit l{s};
  (void)l.on_sample(1ms, sample_kind::overload, 20, t0);
  for (int i = 1; i < 1000; ++i) {
    EXPECT_EQ(l.on_sample(1ms, sample_kind::overload, 18, t0 + i * 1ms), std::nullopt);
  }
  EXPECT_EQ(l.limit(), 18);
  EXPECT_EQ(l.on_sample(1ms, sample_kind::overload, 18, t0 + 1s).value().to, 16);
}

TEST(AdaptiveLimit, ACongestionSignalRestartsTheSuccessesInARow) {
  adaptive_limit_settings s = settings(1, 64, 4);
  s.cooldown = 1s;
  adaptive_limit l{s};
  (void)l.on_sample(10ms, sample_kind::overload, 4, t0);  // 4 -> 3
  succeed(l, 2, 100ms, t0 + 200ms);
  EXPECT_EQ(l.successes_in_row(), 2);
  EXPECT_EQ(l.on_sample(10ms, sample_kind::overload, 3, t0 + 300ms), std::nullopt);
  EXPECT_EQ(l.successes_in_row(), 0) << "in the cooldown: no cut, but no growth either";
  succeed(l, 2, 100ms, t0 + 400ms);
  EXPECT_EQ(l.limit(), 3);
  succeed(l, 1, 100ms, t0 + 400ms);
  EXPECT_EQ(l.limit(), 4);
}

TEST(AdaptiveLimit, NeverCutsBelowTheMinimum) {
  adaptive_limit l{settings(3, 64, 4)};
  for (int i = 0; i < 100; ++i) {
    (void)l.on_sample(1ms, sample_kind::overload, 3, t0 + i * 10ms);
    EXPECT_GE(l.limit(), 3);
  }
  EXPECT_EQ(l.limit(), 3);
  EXPECT_EQ(l.counts().overload_cuts, 1U);
}

TEST(AdaptiveLimit, ASlowSuccessCutsByTheQueueItImplies) {
  adaptive_limit l{settings(1, 64, 20)};
  succeed(l, 1, 100ms, t0);
  ASSERT_EQ(l.baseline(), clock_type::duration{100ms});
  // 160 ms: 20 x (1 - 100/160) = 7.5 queued; cut to 20 x 0.9 x 100/160 = 11.25.
  const auto change = l.on_sample(160ms, sample_kind::success, 20, t0 + 1s);
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->to, 11);
  EXPECT_EQ(change->cause, limit_cause::queueing);
  EXPECT_EQ(l.counts().queueing_cuts, 1U);
  // One outlier cuts at most by half on top of the factor: 11 x 0.9 x 0.5.
  EXPECT_EQ(l.on_sample(3s, sample_kind::success, 11, t0 + 5s).value().to, 4);
}

TEST(AdaptiveLimit, OverloadLatencyDoesNotLowerTheBaseline) {
  adaptive_limit l{settings(1, 64, 20)};
  succeed(l, 1, 100ms, t0);
  (void)l.on_sample(1ms, sample_kind::overload, 20, t0 + 1s);
  EXPECT_EQ(l.baseline(), clock_type::duration{100ms});
}

TEST(AdaptiveLimit, OtherFailuresMoveNothing) {
  adaptive_limit l{settings(1, 64, 4)};
  succeed(l, 3, 100ms, t0);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(l.on_sample(i % 2 == 0 ? 1ms : 30s, sample_kind::other_failure, 4, t0 + i * 1ms),
              std::nullopt);
  }
  EXPECT_EQ(l.limit(), 4);
  EXPECT_EQ(l.baseline(), clock_type::duration{100ms});
  EXPECT_EQ(l.successes_in_row(), 3);
  EXPECT_EQ(l.last_cut(), std::nullopt);
  succeed(l, 1, 100ms, t0 + 1s);
  EXPECT_EQ(l.limit(), 5) << "they did not restart the successes in a row either";
}

// -- baseline -----------------------------------------------------------------------------------

TEST(AdaptiveLimit, TheBaselineIsTheWindowedMinimumOfSuccesses) {
  adaptive_limit_settings s = settings(1, 64, 8);
  s.baseline_window = 10s;
  adaptive_limit l{s};
  EXPECT_EQ(l.baseline(), std::nullopt);
  succeed(l, 1, 120ms, t0);
  succeed(l, 1, 100ms, t0 + 1s);
  succeed(l, 1, 110ms, t0 + 2s);
  EXPECT_EQ(l.baseline(), clock_type::duration{100ms});
  succeed(l, 1, 140ms, t0 + 10s);  // the second window
  EXPECT_EQ(l.baseline(), clock_type::duration{100ms});
  succeed(l, 1, 140ms, t0 + 20s);  // the third: the first is forgotten
  EXPECT_EQ(l.baseline(), clock_type::duration{140ms});
}

TEST(AdaptiveLimit, TheBaselineIsForgottenAfterTwoIdleWindows) {
  adaptive_limit_settings s = settings(1, 64, 8);
  s.baseline_window = 10s;
  adaptive_limit l{s};
  succeed(l, 1, 100ms, t0);
  // After a long pause the first sample is the new baseline, not queueing.
  EXPECT_EQ(l.on_sample(500ms, sample_kind::success, 8, t0 + 25s), std::nullopt);
  EXPECT_EQ(l.baseline(), clock_type::duration{500ms});
  EXPECT_EQ(l.limit(), 8);
}

// -- against a simulated receiver ---------------------------------------------------------------

TEST(AdaptiveLimit, SettlesNearTheCapacityOfAReceiverThatRefusesAboveIt) {
  for (const int c : {4, 20, 50}) {
    expect_settles_near_capacity(settings(1, 200, 8), receiver{c, 0, 100ms});
  }
}

TEST(AdaptiveLimit, SettlesNearTheCapacityOfAReceiverThatQueuesAboveIt) {
  adaptive_limit_settings s = settings(1, 200, 8);
  // Without any 503, the queue alone must hold it: tolerate at most 20% of queueing.
  s.latency_tolerance = 1.2;
  for (const int c : {4, 20, 50}) {
    expect_settles_near_capacity(s, receiver{c, 1'000'000, 100ms});
  }
}

TEST(AdaptiveLimit, SettlesNearTheCapacityOfAReceiverWithABoundedQueue) {
  for (const int c : {20, 50}) {
    expect_settles_near_capacity(settings(1, 200, 8), receiver{c, c / 5, 100ms});
  }
}

TEST(AdaptiveLimit, RecoversAfterTheOverloadEnds) {
  adaptive_limit limit{settings(1, 200, 8)};
  receiver rx{20, 0, 100ms};
  simulation sim{limit, rx};
  (void)sim.run_until(t0 + 20s, t0);
  rx.capacity = 5;  // the receiver lost most of its workers
  const observed overloaded = sim.run_until(t0 + 40s, t0 + 25s);
  EXPECT_GE(overloaded.lowest, 0.7 * 5);
  EXPECT_LE(overloaded.highest, 1.3 * 5);
  rx.capacity = 20;  // and got them back
  const observed recovered = sim.run_until(t0 + 80s, t0 + 50s);
  EXPECT_GE(recovered.lowest, 0.7 * 20);
  EXPECT_LE(recovered.highest, 1.3 * 20);
}

TEST(AdaptiveLimit, RelearnsAPermanentLatencyStepUp) {
  adaptive_limit_settings s = settings(1, 200, 8);
  s.baseline_window = 10s;
  adaptive_limit limit{s};
  receiver rx{20, 0, 100ms};
  simulation sim{limit, rx};
  (void)sim.run_until(t0 + 20s, t0);
  rx.latency = 300ms;  // the receiver moved further away, for good
  // At first the slower answers read as queueing: the limit falls while the old baseline holds.
  const observed relearning = sim.run_until(t0 + 30s, t0 + 22s);
  EXPECT_LT(relearning.highest, 0.7 * 20);
  EXPECT_GT(limit.counts().queueing_cuts, 0U);
  // Two baseline windows later the new latency is the baseline and the limit is back.
  const observed after = sim.run_until(t0 + 100s, t0 + 60s);
  EXPECT_EQ(limit.baseline(), clock_type::duration{300ms});
  EXPECT_GE(after.lowest, 0.7 * 20);
  EXPECT_LE(after.highest, 1.3 * 20);
}

}  // namespace
}  // namespace courier
