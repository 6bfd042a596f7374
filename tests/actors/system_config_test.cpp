#include "actors/system_config.hpp"

#include <caf/all.hpp>
#include <caf/policy/work_sharing.hpp>
#include <caf/scheduler/coordinator.hpp>
#include <gtest/gtest.h>

namespace courier::actors {
namespace {

TEST(ActorSystemConfig, WorkSharingWithOneSchedulerWorkerPerCoreAndAtLeastTwo) {
  caf::actor_system_config cfg;
  configure_actor_system(cfg);
  caf::actor_system system{cfg};
  EXPECT_GE(scheduler_workers(), 2U);
  EXPECT_EQ(system.scheduler().num_workers(), scheduler_workers());
  EXPECT_NE(
      dynamic_cast<caf::scheduler::coordinator<caf::policy::work_sharing>*>(&system.scheduler()),
      nullptr)
      << "the scheduler is not CAF's work-sharing coordinator";
}

}  // namespace
}  // namespace courier::actors
