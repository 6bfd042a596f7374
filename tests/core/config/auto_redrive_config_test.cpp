#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/config.hpp"
#include "core/model/error_classes.hpp"
#include "tests/core/config/route_json.hpp"

// routes[].auto_redrive.
namespace courier {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

using testing::parsed;
using testing::route;

std::string error_of(const json& r) { return testing::error_of({{"routes", json::array({r})}}); }

TEST(AutoRedriveConfig, OffByDefaultAndAnEmptyObjectTurnsItOnWithTheTransientClasses) {
  EXPECT_FALSE(parsed(route(json::object())).routes[0].auto_redrive.has_value());
  const auto on = parsed(route({{"auto_redrive", json::object()}})).routes[0].auto_redrive;
  ASSERT_TRUE(on.has_value());
  EXPECT_EQ(on->after, 5min);
  EXPECT_EQ(on->lookback, 5min);
  EXPECT_EQ(on->classes, (std::vector<std::string>{"http_5xx", "http_503", "http_429", "timeout",
                                                   "connect", "reset", "tls"}));
  EXPECT_DOUBLE_EQ(on->rate, 50);
  EXPECT_EQ(on->max, 10000U);
}

TEST(AutoRedriveConfig, EverySettingIsRead) {
  const auto a = parsed(route({{"auto_redrive",
                                {{"after", "30s"},
                                 {"lookback", "1m"},
                                 {"classes", {"http_503"}},
                                 {"rate", 200},
                                 {"max", 500}}}}))
                     .routes[0]
                     .auto_redrive;
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->after, 30s);
  EXPECT_EQ(a->lookback, 1min);
  EXPECT_EQ(a->classes, std::vector<std::string>{"http_503"});
  EXPECT_DOUBLE_EQ(a->rate, 200);
  EXPECT_EQ(a->max, 500U);
}

TEST(AutoRedriveConfig, BadSettingsNameTheirKey) {
  EXPECT_EQ(error_of(route({{"auto_redrive", {{"after", "0s"}}}}))
                .rfind("routes[0].auto_redrive.after: ", 0),
            0U);
  EXPECT_EQ(error_of(route({{"auto_redrive", {{"classes", json::array()}}}})),
            "routes[0].auto_redrive.classes: must name at least one error class (leave it out "
            "for the transient ones)");
  EXPECT_EQ(error_of(route({{"auto_redrive", {{"rate", 0}}}})),
            "routes[0].auto_redrive.rate: must be a number of records per second in (0, 100000]");
  EXPECT_EQ(
      error_of(route({{"auto_redrive", {{"max", 0}}}})).rfind("routes[0].auto_redrive.max: ", 0),
      0U);
  EXPECT_THROW(parsed(route({{"auto_redrive", {{"classes", {7}}}}})), config_error);
  // A partner's 502 is counted as http_5xx: a class courier never writes would select nothing.
  EXPECT_EQ(error_of(route({{"auto_redrive", {{"classes", {"http_503", "http_502"}}}}}))
                .rfind("routes[0].auto_redrive.classes[1]: \"http_502\" is not an error class "
                       "courier writes, so it would select nothing (one of: http_1xx, ",
                       0),
            0U);
  EXPECT_THROW(parsed(route({{"auto_redrive", {{"delay", "5m"}}}})), config_error)
      << "an unknown key";
  EXPECT_THROW(parsed(route({{"auto_redrive", true}})), config_error);
}

TEST(AutoRedriveConfig, ItsDefaultClassesAreClassesCourierWrites) {
  for (const auto& c : auto_redrive_settings{}.classes) {
    EXPECT_TRUE(is_error_class(c)) << c;
  }
}

}  // namespace
}  // namespace courier
