#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config/config.hpp"
#include "tests/core/config/route_json.hpp"

namespace courier {
namespace {

using nlohmann::json;

using testing::error_of;
using testing::parsed;
using testing::route;

TEST(OrderingConfig, NoneByDefaultAndKeyAsAWord) {
  EXPECT_EQ(parsed(route(json::object())).routes[0].ordering.mode, ordering_mode::none);
  const auto o = parsed(route({{"ordering", "key"}})).routes[0].ordering;
  EXPECT_EQ(o.mode, ordering_mode::key);
  EXPECT_EQ(o.on_dead_letter, dead_letter_followers::release);
  EXPECT_EQ(o.max_parked_keys, 10000U);
  EXPECT_EQ(o.max_followers, 1000U);
}

TEST(OrderingConfig, AnObjectSetsTheModeAndTheBounds) {
  const auto o = parsed(route({{"ordering",
                                {{"mode", "key"},
                                 {"on_dead_letter", "park"},
                                 {"max_parked_keys", 50},
                                 {"max_followers", 7}}}}))
                     .routes[0]
                     .ordering;
  EXPECT_EQ(o.mode, ordering_mode::key);
  EXPECT_EQ(o.on_dead_letter, dead_letter_followers::park);
  EXPECT_EQ(o.max_parked_keys, 50U);
  EXPECT_EQ(o.max_followers, 7U);
}

TEST(OrderingConfig, ABadValueNamesItsKeyAndTheChoices) {
  EXPECT_EQ(error_of({{"routes", json::array({route({{"ordering", "fifo"}})})}}),
            "routes[0].ordering: expected \"none\" or \"key\", got \"fifo\"");
  EXPECT_EQ(error_of({{"routes", json::array({route({{"ordering", {{"max_followers", 5}}}})})}}),
            "routes[0].ordering.mode: must be set: \"none\" or \"key\"");
  EXPECT_EQ(
      error_of({{"routes", json::array({route(
                               {{"ordering", {{"mode", "key"}, {"on_dead_letter", "drop"}}}})})}}),
      "routes[0].ordering.on_dead_letter: expected \"release\" or \"park\", got \"drop\"");
  EXPECT_EQ(
      error_of({{"routes",
                 json::array({route({{"ordering", {{"mode", "key"}, {"max_parked_keys", 0}}}})})}}),
      "routes[0].ordering.max_parked_keys: must be a positive integer, got 0");
  EXPECT_EQ(
      error_of({{"routes", json::array({route({{"ordering", {{"mode", "key"}, {"fifo", 1}}}})})}})
          .rfind("routes[0].ordering.fifo", 0),
      0U);
}

TEST(OrderingConfig, AnOrderedRouteRefusesAnAssignorOtherThanRange) {
  const json ordered = json::array({route({{"ordering", "key"}})});
  EXPECT_EQ(error_of({{"kafka",
                       {{"properties", {{"partition.assignment.strategy", "cooperative-sticky"}}}}},
                      {"routes", ordered}}),
            "kafka.properties.partition.assignment.strategy: must be \"range\" (or unset) while "
            "routes[0].ordering is \"key\": range gives each source partition's retry-tier "
            "partitions to the same instance; got \"cooperative-sticky\"");
  EXPECT_EQ(error_of({{"kafka", {{"properties", {{"partition.assignment.strategy", "range"}}}}},
                      {"routes", ordered}}),
            "no error");
  EXPECT_EQ(
      error_of({{"kafka", {{"properties", {{"partition.assignment.strategy", "roundrobin"}}}}},
                {"routes", json::array({route(json::object())})}}),
      "no error")
      << "unordered routes take any assignor";
}

}  // namespace
}  // namespace courier
