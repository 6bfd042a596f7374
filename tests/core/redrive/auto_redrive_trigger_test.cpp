#include "core/redrive/auto_redrive_trigger.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>

namespace courier {
namespace {

using namespace std::chrono_literals;
using phase = auto_redrive_trigger::phase;

auto_redrive_settings settings() {
  auto_redrive_settings s;
  s.after = 60s;
  s.lookback = 30s;
  return s;
}

constexpr std::int64_t t0 = 1'000'000;

TEST(AutoRedriveTrigger, AnOpenPeriodThenAfterClosedFiresOneEventOverThePeriodAndTheLookback) {
  auto_redrive_trigger t{settings()};
  EXPECT_FALSE(t.on_breaker(breaker_state::open, t0).check_at);
  EXPECT_EQ(t.current(), phase::open);
  EXPECT_FALSE(t.on_breaker(breaker_state::half_open, t0 + 5'000).check_at);
  const auto armed = t.on_breaker(breaker_state::closed, t0 + 10'000);
  ASSERT_EQ(armed.check_at, std::optional<std::int64_t>{t0 + 70'000});
  EXPECT_EQ(t.current(), phase::armed);
  EXPECT_FALSE(t.due(t0 + 69'999)) << "not before the breaker was Closed for `after`";
  const auto e = t.due(t0 + 70'000);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->id, 1U);
  EXPECT_EQ(e->open_since_ms, t0);
  EXPECT_EQ(e->since_ms, t0 - 30'000);
  EXPECT_EQ(e->until_ms, t0 + 70'000) << "what failed again after it fired is not its";
  EXPECT_EQ(t.current(), phase::running);
  EXPECT_FALSE(t.due(t0 + 80'000)) << "one event per period";
  EXPECT_FALSE(t.finished(t0 + 90'000));
  EXPECT_EQ(t.current(), phase::idle);
  EXPECT_FALSE(t.preview(t0 + 90'000)) << "no Open period to redrive from";
}

TEST(AutoRedriveTrigger, AClosedBreakerThatNeverOpenedFiresNothing) {
  auto_redrive_trigger t{settings()};
  EXPECT_FALSE(t.on_breaker(breaker_state::closed, t0).check_at);
  EXPECT_FALSE(t.due(t0 + 3'600'000));
  EXPECT_EQ(t.current(), phase::idle);
}

TEST(AutoRedriveTrigger, ReopeningWhileArmedIsTheSameOutageAndKeepsItsFirstOpening) {
  auto_redrive_trigger t{settings()};
  t.on_breaker(breaker_state::open, t0);
  t.on_breaker(breaker_state::closed, t0 + 10'000);
  t.on_breaker(breaker_state::open, t0 + 40'000);
  EXPECT_FALSE(t.due(t0 + 70'000)) << "disarmed by the reopening";
  const auto armed = t.on_breaker(breaker_state::closed, t0 + 50'000);
  ASSERT_EQ(armed.check_at, std::optional<std::int64_t>{t0 + 110'000});
  const auto e = t.due(t0 + 110'000);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->open_since_ms, t0);
}

TEST(AutoRedriveTrigger, OpeningDuringARunStopsItAndTheNewPeriodIsTheNextEvent) {
  auto_redrive_trigger t{settings()};
  t.on_breaker(breaker_state::open, t0);
  t.on_breaker(breaker_state::closed, t0 + 10'000);
  ASSERT_TRUE(t.due(t0 + 70'000));
  EXPECT_TRUE(t.on_breaker(breaker_state::open, t0 + 75'000).stop_run);
  EXPECT_FALSE(t.on_breaker(breaker_state::half_open, t0 + 76'000).stop_run) << "asked once";
  EXPECT_FALSE(t.finished(t0 + 77'000)) << "still not Closed";
  EXPECT_EQ(t.current(), phase::open);
  const auto armed = t.on_breaker(breaker_state::closed, t0 + 80'000);
  ASSERT_EQ(armed.check_at, std::optional<std::int64_t>{t0 + 140'000});
  const auto e = t.due(t0 + 140'000);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->id, 2U);
  EXPECT_EQ(e->open_since_ms, t0 + 75'000);
}

TEST(AutoRedriveTrigger, ClosedAgainBeforeTheStoppedRunEndedArmsTheNextEventWhenItEnds) {
  auto_redrive_trigger t{settings()};
  t.on_breaker(breaker_state::open, t0);
  t.on_breaker(breaker_state::closed, t0 + 10'000);
  ASSERT_TRUE(t.due(t0 + 70'000));
  t.on_breaker(breaker_state::open, t0 + 75'000);
  EXPECT_FALSE(t.on_breaker(breaker_state::closed, t0 + 78'000).check_at);
  EXPECT_EQ(t.finished(t0 + 79'000), std::optional<std::int64_t>{t0 + 139'000});
  EXPECT_EQ(t.current(), phase::armed);
}

TEST(AutoRedriveTrigger, TheOperatorsStopDropsAnArmedEventOrStopsARunningOne) {
  auto_redrive_trigger t{settings()};
  EXPECT_FALSE(t.cancel().dropped_armed);
  t.on_breaker(breaker_state::open, t0);
  t.on_breaker(breaker_state::closed, t0 + 10'000);
  EXPECT_TRUE(t.cancel().dropped_armed);
  EXPECT_EQ(t.current(), phase::idle);
  EXPECT_FALSE(t.due(t0 + 70'000)) << "dropped";

  t.on_breaker(breaker_state::open, t0 + 100'000);
  t.on_breaker(breaker_state::closed, t0 + 110'000);
  ASSERT_TRUE(t.due(t0 + 170'000));
  const auto c = t.cancel();
  EXPECT_TRUE(c.stop_run);
  EXPECT_FALSE(c.dropped_armed);
  t.finished(t0 + 171'000);
  EXPECT_EQ(t.current(), phase::idle);
}

TEST(AutoRedriveTrigger, ThePreviewIsTheEventThatWouldFireNow) {
  auto_redrive_trigger t{settings()};
  t.on_breaker(breaker_state::open, t0);
  const auto p = t.preview(t0 + 20'000);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->id, 1U);
  EXPECT_EQ(p->since_ms, t0 - 30'000);
  EXPECT_EQ(p->until_ms, t0 + 20'000);
  EXPECT_EQ(t.current(), phase::open) << "a preview changes nothing";
}

}  // namespace
}  // namespace courier
