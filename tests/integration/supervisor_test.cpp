// The pipeline's supervisor: any actor that dies stops the process, named, instead of leaving
// a process that is up and delivers nothing.

#include <gtest/gtest.h>

#include <new>
#include <string>

#include <boost/asio/post.hpp>

#include "actors/messages.hpp"
#include "core/http/io_failure.hpp"
#include "core/http/io_runner.hpp"
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
  caf::anon_send_exit(p.routes().front().endpoints.front().breaker, caf::exit_reason::kill);
  const auto cause = sup.wait();
  EXPECT_EQ(cause.what, topology::stop_cause::kind::actor_died);
  EXPECT_EQ(cause.actor, "breaker of route shipments");
  EXPECT_NE(cause.reason.find("kill"), std::string::npos) << cause.reason;
  // Drains and stops whatever is left, within its bounds; the dead one stays a problem.
  const auto& report = p.stop();
  EXPECT_FALSE(report.timed_out);
  ASSERT_EQ(report.problems.size(), 1U);
  EXPECT_EQ(report.problems.front().rfind("breaker of route shipments: ", 0), 0U)
      << report.problems.front();
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
  const auto& report = p.stop();
  EXPECT_TRUE(report.clean()) << (report.problems.empty() ? "" : report.problems.front());
}

// An allocation failure on an io thread (a hostile peer's bytes) reaches the supervisor as
// `courier run` wires it (http::set_io_failure_handler -> (stop_atom, what)), which stops the
// process the supervised way: io_failed, with what was thrown.
TEST(Supervisor, ABadAllocOnAnIoThreadStopsTheProcessAsAnIoFailure) {
  stand s{1};
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, topology::pipeline_options{1s, 3}};
  topology::supervisor sup{sys, p};
  const auto previous = http::set_io_failure_handler([&sup](const std::string& what) {
    caf::anon_send(sup.handle(), actors::stop_atom::value, what);
  });
  http::io_runner io{1};
  boost::asio::post(io.context(), [] { throw std::bad_alloc{}; });
  const auto cause = sup.wait_for(10s);
  http::set_io_failure_handler(previous);
  ASSERT_TRUE(cause.has_value()) << "the io thread's failure never reached the supervisor";
  EXPECT_EQ(cause->what, topology::stop_cause::kind::io_failed);
  EXPECT_NE(cause->reason.find("bad_alloc"), std::string::npos) << cause->reason;
  const auto& report = p.stop();
  EXPECT_TRUE(report.clean()) << (report.problems.empty() ? "" : report.problems.front());
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

// A consumer whose final commit fails is not a clean stop: the process must not say "stopped"
// and exit 0 over offsets it could not commit (its partitions are fetched again after a restart).
TEST(PipelineStop, AFinalCommitThatFailsNamesTheConsumerInTheReport) {
  stand s{1};
  s.cfg.kafka.properties["auto.commit.interval.ms"] = "600000";  // the final commit is the first
  s.seed(20);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, topology::pipeline_options{5s, 3}};
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(
      wait_until([&] { return m.deliveries[delivery_counter::delivered].load() >= 20U; }, 30s))
      << "delivered: " << m.deliveries[delivery_counter::delivered].load();
  s.cluster.push_request_errors(
      8 /* OffsetCommit */,
      std::vector<rd_kafka_resp_err_t>(5, RD_KAFKA_RESP_ERR_OFFSET_METADATA_TOO_LARGE));
  const auto& report = p.stop();
  EXPECT_FALSE(report.timed_out);
  ASSERT_EQ(report.problems.size(), 1U);
  EXPECT_EQ(report.problems.front().rfind("consumer of route shipments: ", 0), 0U)
      << report.problems.front();
  EXPECT_EQ(s.committed_total(), 0) << "the commit was refused";
}

// A graph that fails half-way (here the second route's URL, which the start-up checks would have
// refused) stops the actors it spawned before it throws: left running, they would keep the actor
// system, and the process, from ever ending.
TEST(PipelineStart, AGraphThatCannotBeBuiltStopsWhatItSpawnedAndThrows) {
  stand s{1};
  auto second = s.route();
  second.name = "second";
  second.url = "not a url";
  s.cfg.routes.push_back(second);
  caf::actor_system sys{s.sys_cfg};
  EXPECT_THROW((topology::pipeline{sys, s.cfg, topology::pipeline_options{1s, 3}}),
               std::invalid_argument);
  EXPECT_TRUE(wait_until([&] { return sys.registry().running() == 0; }, 30s))
      << sys.registry().running() << " actors still running";
}

}  // namespace
}  // namespace courier::testing
