#include "actors/breaker_actor.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/log/log_output.hpp"

#include "tests/actors/deterministic.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

struct BreakerActor : ::testing::Test {
  BreakerActor() {
    metrics = std::make_shared<actors::route_metrics>();
    breaker =
        d.sys->spawn(actors::breaker_actor, std::string{"shipments"}, std::string{},
                     breaker_settings{3, 1000ms, 1, /*gone_probe_interval=*/60000ms}, metrics);
    // State travels as spawn arguments: CAF 0.17 dereferences a null argument tuple when an
    // actor is spawned without any (UBSan reports it).
    recorder = d.sys->spawn(
        [](caf::event_based_actor*,
           std::shared_ptr<std::vector<breaker_change>> seen) -> caf::behavior {
          return {[seen](actors::state_atom, const breaker_change& c) { seen->push_back(c); }};
        },
        changes);
    asker = d.sys->spawn(
        [](caf::event_based_actor* self, std::shared_ptr<std::vector<breaker_permit>> got,
           caf::actor brk) -> caf::behavior {
          return {[=](actors::permit_atom) {
            self->request(brk, caf::infinite, actors::permit_atom::value)
                .then([got](const breaker_permit& p) { got->push_back(p); });
          }};
        },
        permits, breaker);
    caf::anon_send(breaker, actors::subscribe_atom::value, recorder);
    d.run();
    changes->clear();  // the subscription's greeting
  }

  ~BreakerActor() override {
    caf::anon_send_exit(breaker, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(recorder, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(asker, caf::exit_reason::user_shutdown);
    d.run();
  }

  // An outcome of a delivery whose latest permit came from `generation` (by default, the
  // generation of the last permit asked for: 0, Closed, before any).
  void fail(bool probe = false) { outcome(false, probe, generation); }
  void succeed(bool probe = false) { outcome(true, probe, generation); }
  void outcome(bool ok, bool probe, std::uint64_t of_generation) {
    caf::anon_send(breaker, actors::outcome_atom::value, ok, probe, of_generation,
                   /*gone=*/false, retry_after_ms, ok ? breaker_failure{} : why);
    d.run();
  }

  breaker_permit ask() {
    caf::anon_send(asker, actors::permit_atom::value);
    d.run();
    generation = permits->back().generation;
    return permits->back();
  }

  std::uint64_t generation = 0;
  std::int64_t retry_after_ms = 0;                               // of the outcomes sent next
  breaker_failure why{"http_503", "the receiver answered 503"};  // of the failures sent next

  deterministic_system d;
  std::shared_ptr<actors::route_metrics> metrics;
  std::shared_ptr<std::vector<breaker_change>> changes =
      std::make_shared<std::vector<breaker_change>>();
  std::shared_ptr<std::vector<breaker_permit>> permits =
      std::make_shared<std::vector<breaker_permit>>();
  caf::actor breaker;
  caf::actor recorder;
  caf::actor asker;
};

TEST_F(BreakerActor, OpensAfterTripAfterConsecutiveFailedDeliveriesAndPublishesIt) {
  fail();
  fail();
  EXPECT_TRUE(changes->empty());
  EXPECT_TRUE(ask().granted);
  fail();
  ASSERT_EQ(changes->size(), 1U);
  EXPECT_EQ(changes->back().from, breaker_state::closed);
  EXPECT_EQ(changes->back().to, breaker_state::open);
  EXPECT_EQ(changes->back().route, "shipments");
  EXPECT_EQ(metrics->actors[actors::route_counter::breaker_trips].load(), 1U);
  EXPECT_EQ(metrics->actors[actors::route_counter::breaker_to_open].load(), 1U);
  EXPECT_EQ(metrics->actors[actors::route_counter::breaker_to_closed].load(), 0U);
  EXPECT_FALSE(ask().granted);
}

// On a route with several endpoints each has its breaker, and its lines name the endpoint.
TEST_F(BreakerActor, AnEndpointsBreakerNamesItsEndpointInItsLogLines) {
  const auto zoom =
      d.sys->spawn(actors::breaker_actor, std::string{"shipments"}, std::string{"zoom"},
                   breaker_settings{1, 1000ms, 1, /*gone_probe_interval=*/60000ms}, metrics);
  log::set_format(log::line_format::json);  // whatever the terminal running the test
  ::testing::internal::CaptureStderr();
  caf::anon_send(zoom, actors::outcome_atom::value, false, false, std::uint64_t{0},
                 /*gone=*/false, std::int64_t{0}, breaker_failure{"http_503", "503"});
  d.run();
  const auto out = ::testing::internal::GetCapturedStderr();
  const auto line = nlohmann::json::parse(out.substr(0, out.find('\n')));
  EXPECT_EQ(line.at("event"), "breaker state change");
  EXPECT_EQ(line.at("route"), "shipments");
  EXPECT_EQ(line.at("endpoint"), "zoom");
  caf::anon_send_exit(zoom, caf::exit_reason::user_shutdown);
  d.run();
}

// A TLS failure's reason was only in the tier records' headers; the Open line names it.
TEST_F(BreakerActor, TheLogLineOfAnOpenNamesTheFailureThatOpenedIt) {
  fail();
  fail();
  why = breaker_failure{"tls", "certificate verify failed: unable to get local issuer certificate"};
  log::set_format(log::line_format::json);  // whatever the terminal running the test
  ::testing::internal::CaptureStderr();
  fail();
  const auto out = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(changes->size(), 1U);
  const auto line = nlohmann::json::parse(out.substr(0, out.find('\n')));
  EXPECT_EQ(line.at("event"), "breaker state change");
  EXPECT_EQ(line.at("to"), "open");
  EXPECT_FALSE(line.contains("endpoint")) << "a route with one endpoint names none";
  EXPECT_EQ(line.at("error_class"), "tls");
  EXPECT_EQ(line.at("error"), "certificate verify failed: unable to get local issuer certificate");

  d.advance(1000ms);
  ASSERT_TRUE(ask().probe);
  why = breaker_failure{"connect", "connection refused"};
  ::testing::internal::CaptureStderr();
  fail(/*probe=*/true);
  const auto again = ::testing::internal::GetCapturedStderr();
  const auto reopened = nlohmann::json::parse(again.substr(0, again.find('\n')));
  EXPECT_EQ(reopened.at("to"), "open");
  EXPECT_EQ(reopened.at("error_class"), "connect") << "the failed probe's reason";
  EXPECT_EQ(reopened.at("error"), "connection refused");
}

// A partner that announced a maintenance (503, Retry-After: 120) is not probed before it asked.
TEST_F(BreakerActor, AFailureWithALongRetryAfterKeepsItOpenThatLong) {
  retry_after_ms = 120'000;
  fail();
  fail();
  fail();
  ASSERT_EQ(changes->size(), 1U);
  EXPECT_EQ(changes->back().to, breaker_state::open);
  d.advance(119'999ms);
  EXPECT_EQ(changes->size(), 1U) << "probed before the Retry-After";
  d.advance(1ms);
  ASSERT_EQ(changes->size(), 2U);
  EXPECT_EQ(changes->back().to, breaker_state::half_open);
}

TEST_F(BreakerActor, GoneOpensAtOnceAndProbesOnlyAfterTheGoneInterval) {
  caf::anon_send(breaker, actors::outcome_atom::value, false, false, generation, /*gone=*/true,
                 std::int64_t{0}, breaker_failure{"http_410", "the receiver answered 410"});
  d.run();
  ASSERT_EQ(changes->size(), 1U);
  EXPECT_EQ(changes->back().to, breaker_state::open);
  d.advance(1000ms);
  d.advance(58999ms);
  EXPECT_EQ(changes->size(), 1U) << "open_timeout does not apply while gone";
  d.advance(1ms);
  ASSERT_EQ(changes->size(), 2U);
  EXPECT_EQ(changes->back().to, breaker_state::half_open);
  ASSERT_TRUE(ask().probe);
  succeed(/*probe=*/true);
  EXPECT_EQ(changes->back().to, breaker_state::closed);
}

TEST_F(BreakerActor, GoneWhileOpenMovesItsProbeToTheGoneInterval) {
  fail();
  fail();
  fail();
  caf::anon_send(breaker, actors::outcome_atom::value, false, false, generation, /*gone=*/true,
                 std::int64_t{0}, breaker_failure{"http_410", "the receiver answered 410"});
  d.run();
  d.advance(1000ms);
  EXPECT_EQ(changes->size(), 1U);
  d.advance(59000ms);
  ASSERT_EQ(changes->size(), 2U);
  EXPECT_EQ(changes->back().to, breaker_state::half_open);
}

TEST_F(BreakerActor, ASuccessResetsTheConsecutiveFailures) {
  fail();
  fail();
  succeed();
  fail();
  fail();
  EXPECT_TRUE(changes->empty());
}

TEST_F(BreakerActor, MovesToHalfOpenOnlyAfterTheOpenTimeout) {
  fail();
  fail();
  fail();
  d.advance(999ms);
  EXPECT_EQ(changes->size(), 1U);
  d.advance(1ms);
  ASSERT_EQ(changes->size(), 2U);
  EXPECT_EQ(changes->back().to, breaker_state::half_open);
}

TEST_F(BreakerActor, HalfOpenLetsExactlyOneProbeThrough) {
  fail();
  fail();
  fail();
  d.advance(1000ms);
  const auto first = ask();
  EXPECT_TRUE(first.granted);
  EXPECT_TRUE(first.probe);
  EXPECT_FALSE(ask().granted);
  EXPECT_FALSE(ask().granted);
}

TEST_F(BreakerActor, ASuccessfulProbeClosesIt) {
  fail();
  fail();
  fail();
  d.advance(1000ms);
  ASSERT_TRUE(ask().probe);
  succeed(/*probe=*/true);
  EXPECT_EQ(changes->back().to, breaker_state::closed);
  EXPECT_TRUE(ask().granted);
}

TEST_F(BreakerActor, AFailedProbeOpensItAgainForAnotherTimeout) {
  fail();
  fail();
  fail();
  d.advance(1000ms);
  ASSERT_TRUE(ask().probe);
  fail(/*probe=*/true);
  EXPECT_EQ(changes->back().to, breaker_state::open);
  d.advance(1000ms);
  EXPECT_EQ(changes->back().to, breaker_state::half_open);
}

TEST_F(BreakerActor, InHalfOpenOnlyTheProbeDecides) {
  fail();
  fail();
  fail();
  d.advance(1000ms);
  const auto before = changes->size();
  fail(/*probe=*/false);
  succeed(/*probe=*/false);
  EXPECT_EQ(changes->size(), before);
  EXPECT_EQ(changes->back().to, breaker_state::half_open);
}

TEST_F(BreakerActor, AFailureOfADeliveryFromBeforeATripDoesNotCountTowardTheNext) {
  fail();
  fail();
  fail();
  d.advance(1000ms);
  ASSERT_TRUE(ask().probe);
  succeed(/*probe=*/true);
  ASSERT_EQ(changes->back().to, breaker_state::closed);
  const auto before = changes->size();
  for (int i = 0; i < 3; ++i) {
    outcome(false, false, /*of_generation=*/0);  // deliveries that began before the trip
  }
  EXPECT_EQ(changes->size(), before) << "stale failures do not trip the closed breaker";
  EXPECT_TRUE(ask().granted);
  fail();
  fail();
  fail();
  EXPECT_EQ(changes->back().to, breaker_state::open) << "failures of this generation do";
}

}  // namespace
}  // namespace courier::testing
