// The pipeline's supervisor: any actor that dies stops the process, named, instead of leaving
// a process that is up and delivers nothing.

#include <gtest/gtest.h>

#include "actors/messages.hpp"
#include "tests/integration/stand.hpp"
#include "topology/pipeline.hpp"
#include "topology/supervisor.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

TEST(Supervisor, ReportsTheFirstActorThatDiesByNameAndReason) {
  stand s{1};
  s.seed(20);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, topology::pipeline_options{1s, 3}};
  topology::supervisor sup{sys, p};
  ASSERT_EQ(p.actors().size(), 5U) << "the router and four actors per route";
  caf::anon_send_exit(p.routes().front().breaker, caf::exit_reason::kill);
  const auto cause = sup.wait();
  EXPECT_EQ(cause.what, topology::stop_cause::kind::actor_died);
  EXPECT_EQ(cause.actor, "breaker of route shipments");
  EXPECT_NE(cause.reason.find("kill"), std::string::npos) << cause.reason;
  p.stop();  // drains and stops whatever is left, within its bounds
}

TEST(Supervisor, ReturnsTheSignalOfAStopRequestWhileEveryActorIsUp) {
  stand s{1};
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, topology::pipeline_options{1s, 3}};
  topology::supervisor sup{sys, p};
  caf::anon_send(sup.handle(), actors::stop_atom::value, 15);
  const auto cause = sup.wait();
  EXPECT_EQ(cause.what, topology::stop_cause::kind::signal);
  EXPECT_EQ(cause.signal, 15);
  p.stop();
}

TEST(Supervisor, WaitForReturnsNothingWhileEveryActorIsUpAndTheDeathOnceOneDies) {
  stand s{1};
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, topology::pipeline_options{1s, 3}};
  topology::supervisor sup{sys, p};
  EXPECT_FALSE(sup.wait_for(10ms).has_value()) << "every actor is up, nobody asked to stop";
  caf::anon_send_exit(p.routes().front().delivery, caf::exit_reason::kill);
  std::optional<topology::stop_cause> cause;
  ASSERT_TRUE(wait_until([&] { return (cause = sup.wait_for(50ms)).has_value(); }, 30s));
  EXPECT_EQ(cause->what, topology::stop_cause::kind::actor_died);
  EXPECT_EQ(cause->actor, "delivery_pool of route shipments");
  p.stop();
}

}  // namespace
}  // namespace courier::testing
