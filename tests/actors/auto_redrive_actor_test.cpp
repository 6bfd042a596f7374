#include "actors/auto_redrive_actor.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "actors/messages.hpp"
#include "actors/system_config.hpp"
#include "tests/support/wait_until.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

// What the fake runner was asked, and what it answers: each call is recorded, a run (not a dry
// run) blocks until told to finish or stopped.
struct runner_log {
  std::mutex m;
  std::vector<auto_redrive_event> runs;
  std::vector<auto_redrive_event> dry_runs;
  std::atomic<bool> finish{false};
  std::atomic<bool> saw_stop{false};

  std::size_t run_count() {
    std::lock_guard<std::mutex> lock{m};
    return runs.size();
  }
};

actors::auto_redrive_runner fake_runner(const std::shared_ptr<runner_log>& log) {
  return [log](const auto_redrive_event& e, bool dry_run, const std::function<bool()>& stop) {
    actors::auto_redrive_outcome out;
    {
      std::lock_guard<std::mutex> lock{log->m};
      (dry_run ? log->dry_runs : log->runs).push_back(e);
    }
    if (dry_run) {
      out.would_move = 7;
      return out;
    }
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!log->finish.load() && !stop() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(1ms);
    }
    out.stopped = stop();
    log->saw_stop = out.stopped;
    out.moved = out.stopped ? 2 : 5;
    return out;
  };
}

// On a real scheduler, not the deterministic one: the actor runs each event on a worker thread
// of its own, whose answer the test coordinator (not thread-safe) could not take. Waits are
// conditions with deadlines; `after` is 1 s, so "not yet" is checked at once after the close.
struct AutoRedriveActor : ::testing::Test {
  AutoRedriveActor() {
    actors::configure_actor_system(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
    metrics = std::make_shared<actors::route_metrics>();
    auto_redrive_settings s;
    s.after = 1000ms;
    s.lookback = 60000ms;
    actor = sys->spawn(actors::auto_redrive_actor, std::string{"shipments"}, std::string{}, s,
                       fake_runner(log), metrics);
  }

  ~AutoRedriveActor() override {
    log->finish = true;
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  }

  void breaker_moves(breaker_state from, breaker_state to) {
    caf::anon_send(actor, actors::state_atom::value, breaker_change{"shipments", from, to, 0});
  }

  static bool eventually(const std::function<bool()>& done) { return wait_until(done, 10s); }

  std::uint64_t counter(actors::route_counter c) const { return metrics->actors[c].load(); }

  // Asks the actor (get_atom or stop_atom) and waits for its answer.
  template <typename Atom>
  nlohmann::json ask(Atom atom) {
    caf::scoped_actor self{*sys};
    std::optional<std::string> answer;
    self->request(actor, std::chrono::seconds{10}, atom)
        .receive([&](const std::string& body) { answer = body; },
                 [&](const caf::error& e) { ADD_FAILURE() << to_string(e); });
    return answer ? nlohmann::json::parse(*answer) : nlohmann::json{};
  }

  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::shared_ptr<actors::route_metrics> metrics;
  std::shared_ptr<runner_log> log = std::make_shared<runner_log>();
  caf::actor actor;
};

TEST_F(AutoRedriveActor, AnOpenPeriodThenClosedForAfterRunsOneEventAndCountsWhatItMoved) {
  breaker_moves(breaker_state::closed, breaker_state::open);
  breaker_moves(breaker_state::open, breaker_state::closed);
  EXPECT_EQ(log->run_count(), 0U) << "not before `after`";
  ASSERT_TRUE(eventually([&] { return log->run_count() == 1; }));
  {
    std::lock_guard<std::mutex> lock{log->m};
    const auto& e = log->runs.front();
    EXPECT_EQ(e.id, 1U);
    EXPECT_GE(e.until_ms - e.open_since_ms, 1000) << "Closed for `after` before it fired";
    EXPECT_EQ(e.open_since_ms - e.since_ms, 60000) << "the lookback";
  }
  EXPECT_EQ(counter(actors::route_counter::auto_redrive_events), 1U);
  log->finish = true;
  ASSERT_TRUE(eventually([&] { return counter(actors::route_counter::auto_redrive_moved) == 5U; }));
  EXPECT_EQ(counter(actors::route_counter::auto_redrive_failed), 0U);
  EXPECT_EQ(ask(caf::get_atom::value)["phase"], "idle") << "one event per Open period";
  EXPECT_EQ(log->run_count(), 1U);
}

// The route's gauges count the auto-redrive in its phase: watching an outage, armed, running,
// and in none once the event ended.
TEST_F(AutoRedriveActor, TheGaugesFollowItsPhaseFromTheOutageThroughTheRunBackToIdle) {
  using actors::route_gauge;
  const auto phases = [&] {
    return std::array<std::int64_t, 3>{metrics->gauges[route_gauge::auto_redrive_watching].load(),
                                       metrics->gauges[route_gauge::auto_redrive_armed].load(),
                                       metrics->gauges[route_gauge::auto_redrive_running].load()};
  };
  using counts = std::array<std::int64_t, 3>;
  EXPECT_EQ(phases(), (counts{0, 0, 0}));
  breaker_moves(breaker_state::closed, breaker_state::open);
  ASSERT_TRUE(eventually([&] { return phases() == counts{1, 0, 0}; })) << "watching the outage";
  breaker_moves(breaker_state::open, breaker_state::closed);
  ASSERT_TRUE(eventually([&] { return phases() == counts{0, 1, 0}; })) << "armed for `after`";
  ASSERT_TRUE(eventually([&] { return log->run_count() == 1; }));
  ASSERT_TRUE(eventually([&] { return phases() == counts{0, 0, 1}; })) << "running";
  log->finish = true;
  ASSERT_TRUE(eventually([&] { return phases() == counts{0, 0, 0}; })) << "idle again";
}

TEST_F(AutoRedriveActor, TheOperatorsStopDropsAnArmedEvent) {
  breaker_moves(breaker_state::closed, breaker_state::open);
  breaker_moves(breaker_state::open, breaker_state::closed);
  const auto answer = ask(actors::stop_atom::value);
  EXPECT_EQ(answer["dropped"], true) << answer.dump();
  EXPECT_EQ(answer["phase"], "idle") << answer.dump();
  // Past `after`: the dropped event's check finds nothing to run.
  const auto until = std::chrono::steady_clock::now() + 1500ms;
  EXPECT_FALSE(wait_until([&] { return log->run_count() > 0; }, 1500ms));
  EXPECT_GE(std::chrono::steady_clock::now(), until);
}

TEST_F(AutoRedriveActor, TheBreakerOpeningDuringARunStopsIt) {
  breaker_moves(breaker_state::closed, breaker_state::open);
  breaker_moves(breaker_state::open, breaker_state::closed);
  ASSERT_TRUE(eventually([&] { return log->run_count() == 1; }));
  breaker_moves(breaker_state::closed, breaker_state::open);
  ASSERT_TRUE(eventually([&] { return counter(actors::route_counter::auto_redrive_moved) == 2U; }));
  EXPECT_TRUE(log->saw_stop.load());
  // The new Open period is the next event's.
  breaker_moves(breaker_state::open, breaker_state::closed);
  ASSERT_TRUE(eventually([&] { return log->run_count() == 2; }));
  std::lock_guard<std::mutex> lock{log->m};
  EXPECT_EQ(log->runs.back().id, 2U);
}

TEST_F(AutoRedriveActor, ThePreviewIsADryRunOfTheWindowAnEventWouldReadNowAnsweredAgainForAWhile) {
  auto idle = ask(caf::get_atom::value);
  EXPECT_EQ(idle["phase"], "idle") << idle.dump();
  EXPECT_EQ(idle["preview"]["would_move"], 0) << idle.dump();
  breaker_moves(breaker_state::closed, breaker_state::open);
  const auto p = ask(caf::get_atom::value);
  EXPECT_EQ(p["phase"], "open") << p.dump();
  EXPECT_EQ(p["preview"]["would_move"], 7) << p.dump();
  EXPECT_EQ(p["preview"]["window"]["auto_redrive_event"], 1) << p.dump();
  const auto again = ask(caf::get_atom::value);
  EXPECT_EQ(again["preview"], p["preview"]) << "answered again within preview_reuse";
  std::lock_guard<std::mutex> lock{log->m};
  EXPECT_EQ(log->dry_runs.size(), 1U);
  EXPECT_TRUE(log->runs.empty()) << "a preview moves nothing";
}

}  // namespace
}  // namespace courier::testing
