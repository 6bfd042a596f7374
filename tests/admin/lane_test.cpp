#include "admin/lane.hpp"

#include <gtest/gtest.h>

namespace courier::admin {
namespace {

TEST(AdminLane, ProbesAndScrapesGoToTheMonitoringLane) {
  EXPECT_EQ(lane_of("/healthz"), admin_lane::monitoring);
  EXPECT_EQ(lane_of("/readyz?verbose"), admin_lane::monitoring);
  EXPECT_EQ(lane_of("/metrics"), admin_lane::monitoring);
}

TEST(AdminLane, CommandsAndEverythingElseGoToTheCommandLane) {
  EXPECT_EQ(lane_of("/routes/a/pause"), admin_lane::command);
  EXPECT_EQ(lane_of("/routes/a/auto-redrive"), admin_lane::command);
  EXPECT_EQ(lane_of("/state"), admin_lane::command);
  EXPECT_EQ(lane_of("/healthz/../routes/a/pause"), admin_lane::command);
  EXPECT_EQ(lane_of("/nowhere"), admin_lane::command);
}

}  // namespace
}  // namespace courier::admin
