#include "actors/failure_log.hpp"

#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/log/log_output.hpp"
#include "tests/actors/deterministic.hpp"

namespace courier::testing {
namespace {

// An actor whose handler throws, as a consumer does when librdkafka refuses something.
caf::behavior thrower(caf::event_based_actor* self, std::string route) {
  actors::log_failures(self, "consumer", std::move(route));
  return {[](actors::poll_atom) { throw std::runtime_error{"librdkafka refused the property"}; }};
}

TEST(FailureLog, AnEscapedExceptionIsLoggedOnceWithTheActorAndEndsItForItsMonitor) {
  deterministic_system d;
  auto down_reason = std::make_shared<caf::error>();
  auto actor = d.sys->spawn(thrower, std::string{"shipments"});
  auto watcher = d.sys->spawn(
      [](caf::event_based_actor* self, caf::actor watched,
         std::shared_ptr<caf::error> reason) -> caf::behavior {
        self->monitor(watched);
        self->set_down_handler([reason](caf::down_msg& m) { *reason = m.reason; });
        return {[](actors::stop_atom, int) {}};
      },
      actor, down_reason);
  d.run();

  log::set_format(log::line_format::json);  // whatever the terminal running the test
  ::testing::internal::CaptureStderr();
  caf::anon_send(actor, actors::poll_atom::value);
  d.run();
  const auto out = ::testing::internal::GetCapturedStderr();

  EXPECT_EQ(*down_reason, caf::make_error(caf::exit_reason::unhandled_exception))
      << "the monitor learns the actor died of an exception";
  const auto line = nlohmann::json::parse(out.substr(0, out.find('\n')));
  EXPECT_EQ(line.at("event"), "actor failed");
  EXPECT_EQ(line.at("level"), "error");
  EXPECT_EQ(line.at("actor"), "consumer");
  EXPECT_EQ(line.at("route"), "shipments");
  EXPECT_EQ(line.at("error"), "librdkafka refused the property");
  caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
  d.run();
}

}  // namespace
}  // namespace courier::testing
