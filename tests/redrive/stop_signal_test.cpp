#include "tools/redrive/stop_signal.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace courier::redrive {
namespace {

TEST(StopSignal, ASigintIsCaughtAndRecordedInsteadOfEndingTheProcess) {
  catch_stop_signals();
  EXPECT_FALSE(stop_signal_arrived());
  ASSERT_EQ(std::raise(SIGINT), 0);
  EXPECT_TRUE(stop_signal_arrived());
  std::signal(SIGTERM, SIG_DFL);  // the first signal reset SIGINT's handler, not SIGTERM's
}

}  // namespace
}  // namespace courier::redrive
