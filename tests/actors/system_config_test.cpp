#include "actors/system_config.hpp"

#include <caf/all.hpp>
#include <gtest/gtest.h>

namespace courier::actors {
namespace {

TEST(ActorSystemConfig, OneSchedulerWorkerPerCoreAndAtLeastTwo) {
  caf::actor_system_config cfg;
  configure_actor_system(cfg);
  caf::actor_system system{cfg};
  EXPECT_GE(scheduler_workers(), 2U);
  EXPECT_EQ(system.scheduler().num_workers(), scheduler_workers());
}

}  // namespace
}  // namespace courier::actors
