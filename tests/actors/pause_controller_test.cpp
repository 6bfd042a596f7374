#include "actors/pause_controller.hpp"

#include <gtest/gtest.h>

#include "tests/actors/deterministic.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;
using actors::pause_reason;

struct PauseController : ::testing::Test {
  PauseController() {
    metrics = std::make_shared<actors::route_metrics>();
    controller = d.sys->spawn(actors::pause_controller, std::string{"shipments"}, 1000ms, metrics,
                              std::size_t{1});
    // State travels as a spawn argument: CAF 0.17 dereferences a null argument tuple when an
    // actor is spawned without any (UBSan reports it).
    consumer = d.sys->spawn(
        [](caf::event_based_actor*,
           std::shared_ptr<std::vector<std::string>> log) -> caf::behavior {
          return {
              [log](actors::pause_atom, pause_reason r) {
                log->push_back("pause:" + actors::to_string(r));
                return std::vector<std::string>{"brew.shipments.v1[0]"};
              },
              [log](actors::resume_atom, pause_reason r) {
                log->push_back("resume:" + actors::to_string(r));
                return std::vector<std::string>{"brew.shipments.v1[0]"};
              },
          };
        },
        calls);
    caf::anon_send(controller, actors::subscribe_atom::value, consumer);
    d.run();
  }

  ~PauseController() override {
    caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(consumer, caf::exit_reason::user_shutdown);
    d.run();
  }

  void breaker_moves(breaker_state from, breaker_state to) {
    caf::anon_send(controller, actors::state_atom::value, breaker_change{"shipments", from, to, 0});
    d.run();
  }

  deterministic_system d;
  std::shared_ptr<actors::route_metrics> metrics;
  std::shared_ptr<std::vector<std::string>> calls = std::make_shared<std::vector<std::string>>();
  caf::actor controller;
  caf::actor consumer;
};

// A route with two endpoints: their breakers speak from two addresses; the partitions pause only
// once both stay Open, and resume when one leaves Open.
TEST_F(PauseController, WithTwoEndpointsPausesOnlyWhileBothBreakersStayOpen) {
  auto joint = d.sys->spawn(actors::pause_controller, std::string{"shipments"}, 1000ms, metrics,
                            std::size_t{2});
  caf::anon_send(joint, actors::subscribe_atom::value, consumer);
  caf::scoped_actor acme{*d.sys};
  caf::scoped_actor zoom{*d.sys};
  const auto moves = [&](caf::scoped_actor& breaker, breaker_state from, breaker_state to) {
    breaker->send(joint, actors::state_atom::value, breaker_change{"shipments", from, to, 0});
    d.run();
  };
  moves(acme, breaker_state::closed, breaker_state::open);
  d.advance(2000ms);
  EXPECT_TRUE(calls->empty()) << "one endpoint's outage pauses nothing";
  moves(zoom, breaker_state::closed, breaker_state::open);
  d.advance(999ms);
  EXPECT_TRUE(calls->empty());
  d.advance(1ms);
  ASSERT_EQ(*calls, (std::vector<std::string>{"pause:breaker"}));
  moves(zoom, breaker_state::open, breaker_state::half_open);
  EXPECT_EQ(calls->back(), "resume:breaker");
  caf::anon_send_exit(joint, caf::exit_reason::user_shutdown);
  d.run();
}

TEST_F(PauseController, PausesOnlyWhenTheBreakerStaysOpenLongerThanPauseAfter) {
  breaker_moves(breaker_state::closed, breaker_state::open);
  d.advance(999ms);
  EXPECT_TRUE(calls->empty());
  d.advance(1ms);
  ASSERT_EQ(*calls, std::vector<std::string>{"pause:breaker"});
  EXPECT_EQ(metrics->actors[actors::route_counter::pauses].load(), 1U);
}

TEST_F(PauseController, ABreakerThatClosesInTimeNeverPauses) {
  breaker_moves(breaker_state::closed, breaker_state::open);
  d.advance(500ms);
  breaker_moves(breaker_state::open, breaker_state::half_open);
  breaker_moves(breaker_state::half_open, breaker_state::closed);
  d.advance(5000ms);
  EXPECT_TRUE(calls->empty());
}

TEST_F(PauseController, ResumesOnHalfOpenAndPausesAgainAtOnceWhenTheProbeFails) {
  breaker_moves(breaker_state::closed, breaker_state::open);
  d.advance(1000ms);
  breaker_moves(breaker_state::open, breaker_state::half_open);
  ASSERT_EQ(calls->size(), 2U);
  EXPECT_EQ(calls->at(1), "resume:breaker");
  // The episode began a second ago: a failed probe pauses at once.
  breaker_moves(breaker_state::half_open, breaker_state::open);
  ASSERT_EQ(calls->size(), 3U);
  EXPECT_EQ(calls->at(2), "pause:breaker");
  breaker_moves(breaker_state::open, breaker_state::half_open);
  breaker_moves(breaker_state::half_open, breaker_state::closed);
  EXPECT_EQ(calls->back(), "resume:breaker");
  EXPECT_EQ(metrics->actors[actors::route_counter::resumes].load(), 2U);
}

TEST_F(PauseController, ResumesOnlyWhatItPaused) {
  breaker_moves(breaker_state::closed, breaker_state::open);
  breaker_moves(breaker_state::open, breaker_state::half_open);
  breaker_moves(breaker_state::half_open, breaker_state::closed);
  EXPECT_TRUE(calls->empty());
}

TEST_F(PauseController, ANewEpisodeWaitsTheFullPauseAfterAgain) {
  breaker_moves(breaker_state::closed, breaker_state::open);
  d.advance(1000ms);
  breaker_moves(breaker_state::open, breaker_state::half_open);
  breaker_moves(breaker_state::half_open, breaker_state::closed);
  calls->clear();
  breaker_moves(breaker_state::closed, breaker_state::open);
  EXPECT_TRUE(calls->empty());
  d.advance(1000ms);
  EXPECT_EQ(*calls, std::vector<std::string>{"pause:breaker"});
}

}  // namespace
}  // namespace courier::testing
