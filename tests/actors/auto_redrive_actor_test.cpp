#include "actors/auto_redrive_actor.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/actors/deterministic.hpp"

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

struct AutoRedriveActor : ::testing::Test {
  AutoRedriveActor() {
    metrics = std::make_shared<actors::route_metrics>();
    auto_redrive_settings s;
    s.after = 2000ms;
    s.lookback = 60000ms;
    actor = d.sys->spawn(actors::auto_redrive_actor, std::string{"shipments"}, s, fake_runner(log),
                         metrics);
    d.run();
  }

  ~AutoRedriveActor() override {
    log->finish = true;
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    d.run();
  }

  void breaker_moves(breaker_state from, breaker_state to) {
    caf::anon_send(actor, actors::state_atom::value, breaker_change{"shipments", from, to, 0});
    d.run();
  }

  // Runs the actor's messages until `done` holds: the worker answers from a thread of its own.
  template <typename F>
  bool run_until(F done) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      d.run();
      if (done()) {
        return true;
      }
      std::this_thread::sleep_for(1ms);
    }
    return false;
  }

  // Asks the actor (get_atom or stop_atom) from an actor of the test system and waits for its
  // answer.
  template <typename Atom>
  nlohmann::json ask(Atom atom) {
    auto answer = std::make_shared<std::optional<std::string>>();
    auto asker = d.sys->spawn(
        [atom](caf::event_based_actor* self, std::shared_ptr<std::optional<std::string>> out,
               caf::actor target) -> caf::behavior {
          self->request(target, caf::infinite, atom).then([out](const std::string& body) {
            *out = body;
          });
          return {[](int) {}};
        },
        answer, actor);
    const bool answered = run_until([&] { return answer->has_value(); });
    caf::anon_send_exit(asker, caf::exit_reason::user_shutdown);
    d.run();
    return answered ? nlohmann::json::parse(**answer) : nlohmann::json{};
  }

  deterministic_system d;
  std::shared_ptr<actors::route_metrics> metrics;
  std::shared_ptr<runner_log> log = std::make_shared<runner_log>();
  caf::actor actor;
};

TEST_F(AutoRedriveActor, AnOpenPeriodThenClosedForAfterRunsOneEventAndCountsWhatItMoved) {
  breaker_moves(breaker_state::closed, breaker_state::open);
  d.advance(3000ms);
  breaker_moves(breaker_state::open, breaker_state::closed);
  d.advance(1999ms);
  EXPECT_EQ(log->run_count(), 0U) << "not before `after`";
  d.advance(1ms);
  ASSERT_TRUE(run_until([&] { return log->run_count() == 1; }));
  {
    std::lock_guard<std::mutex> lock{log->m};
    const auto& e = log->runs.front();
    EXPECT_EQ(e.id, 1U);
    EXPECT_EQ(e.until_ms - e.open_since_ms, 5000) << "3 s open, 2 s closed";
    EXPECT_EQ(e.open_since_ms - e.since_ms, 60000) << "the lookback";
  }
  EXPECT_EQ(metrics->actors[actors::route_counter::auto_redrive_events].load(), 1U);
  log->finish = true;
  ASSERT_TRUE(run_until(
      [&] { return metrics->actors[actors::route_counter::auto_redrive_moved].load() == 5U; }));
  EXPECT_EQ(metrics->actors[actors::route_counter::auto_redrive_failed].load(), 0U);
  d.advance(60000ms);
  EXPECT_EQ(log->run_count(), 1U) << "one event per Open period";
}

TEST_F(AutoRedriveActor, TheOperatorsStopDropsAnArmedEvent) {
  breaker_moves(breaker_state::closed, breaker_state::open);
  breaker_moves(breaker_state::open, breaker_state::closed);
  const auto answer = ask(actors::stop_atom::value);
  EXPECT_EQ(answer["dropped"], true) << answer.dump();
  EXPECT_EQ(answer["phase"], "idle") << answer.dump();
  d.advance(10000ms);
  EXPECT_EQ(log->run_count(), 0U);
}

TEST_F(AutoRedriveActor, TheBreakerOpeningDuringARunStopsIt) {
  breaker_moves(breaker_state::closed, breaker_state::open);
  breaker_moves(breaker_state::open, breaker_state::closed);
  d.advance(2000ms);
  ASSERT_TRUE(run_until([&] { return log->run_count() == 1; }));
  breaker_moves(breaker_state::closed, breaker_state::open);
  ASSERT_TRUE(run_until(
      [&] { return metrics->actors[actors::route_counter::auto_redrive_moved].load() == 2U; }));
  EXPECT_TRUE(log->saw_stop.load());
  // The new Open period is the next event's.
  breaker_moves(breaker_state::open, breaker_state::closed);
  d.advance(2000ms);
  ASSERT_TRUE(run_until([&] { return log->run_count() == 2; }));
  std::lock_guard<std::mutex> lock{log->m};
  EXPECT_EQ(log->runs.back().id, 2U);
}

TEST_F(AutoRedriveActor, ThePreviewIsADryRunOfTheWindowAnEventWouldReadNow) {
  auto idle = ask(caf::get_atom::value);
  EXPECT_EQ(idle["phase"], "idle") << idle.dump();
  EXPECT_EQ(idle["preview"]["would_move"], 0) << idle.dump();
  breaker_moves(breaker_state::closed, breaker_state::open);
  d.advance(1000ms);
  const auto p = ask(caf::get_atom::value);
  EXPECT_EQ(p["phase"], "open") << p.dump();
  EXPECT_EQ(p["preview"]["would_move"], 7) << p.dump();
  EXPECT_EQ(p["preview"]["window"]["auto_redrive_event"], 1) << p.dump();
  const auto again = ask(caf::get_atom::value);
  EXPECT_EQ(again["preview"], p["preview"]) << "answered again within preview_reuse";
  d.advance(std::chrono::milliseconds{actors::preview_reuse});
  const auto later = ask(caf::get_atom::value);
  EXPECT_NE(later["preview"]["window"]["dead_lettered_until_ms"],
            p["preview"]["window"]["dead_lettered_until_ms"])
      << "a new dry run once it is older";
  std::lock_guard<std::mutex> lock{log->m};
  EXPECT_EQ(log->dry_runs.size(), 2U);
  EXPECT_TRUE(log->runs.empty()) << "a preview moves nothing";
}

}  // namespace
}  // namespace courier::testing
