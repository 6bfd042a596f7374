// `courier config check`: the configuration checked as `courier run` checks it before it starts
// (the reader, the validation, the start-up checks of kafka.properties, URLs and TLS), without
// connecting to a broker or a receiver.

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/courier_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

struct check_result {
  std::optional<int> exit_code;
  std::string log;
};

check_result config_check(const std::string& config_path, const std::vector<std::string>& env,
                          const temp_dir& dir) {
  courier_process courier{
      {"config", "check", "--config", config_path}, env, (dir.path() / "log").string()};
  const auto code = courier.wait_exit(10s);
  return {code, courier.log()};
}

// A route on a broker nobody listens on (127.0.0.1:1): a check that connected would hang or
// fail; this one answers at once.
std::string write_config(const temp_dir& dir, const std::string& route_extra) {
  const auto path = dir.path() / "courier.json";
  std::ofstream{path} << R"({"kafka": {"brokers": "127.0.0.1:1", "group_id": "courier"},
    "routes": [{"name": "shipments", "topic": "brew.shipments.v1",
                "url": "http://127.0.0.1:1/deliver")"
                      << route_extra << "}]}";
  return path.string();
}

TEST(ConfigCheck, TheShippedConfigIsValid) {
  const temp_dir dir{"config-check"};
  const auto r = config_check(std::string{COURIER_SOURCE_DIR} + "/topology/courier.json",
                              {"HMAC_SECRET=x"}, dir);
  ASSERT_TRUE(r.exit_code.has_value()) << "courier config check did not exit\n" << r.log;
  EXPECT_EQ(*r.exit_code, 0) << r.log;
  EXPECT_NE(r.log.find("valid"), std::string::npos) << r.log;
}

TEST(ConfigCheck, AnUnknownKeyExits2NamingIt) {
  const temp_dir dir{"config-check"};
  const auto r = config_check(write_config(dir, R"(, "max_inflight": 10)"), {"HMAC_SECRET=x"}, dir);
  ASSERT_TRUE(r.exit_code.has_value()) << r.log;
  EXPECT_EQ(*r.exit_code, 2) << r.log;
  EXPECT_NE(r.log.find("max_inflight"), std::string::npos) << r.log;
}

TEST(ConfigCheck, AMissingSecretExits2AsRunWould) {
  const temp_dir dir{"config-check"};
  const auto r = config_check(write_config(dir, ""), {}, dir);
  ASSERT_TRUE(r.exit_code.has_value()) << r.log;
  EXPECT_EQ(*r.exit_code, 2) << r.log;
  EXPECT_NE(r.log.find("secret"), std::string::npos) << r.log;
}

// The start-up checks run too, not only the reader: a property librdkafka refuses is named.
TEST(ConfigCheck, AKafkaPropertyLibrdkafkaRefusesExits2NamingIt) {
  const temp_dir dir{"config-check"};
  const auto path = dir.path() / "courier.json";
  std::ofstream{path} << R"({"kafka": {"brokers": "127.0.0.1:1",
    "properties": {"fetch.wait.max.ms": "banana"}},
    "routes": [{"name": "shipments", "topic": "brew.shipments.v1",
                "url": "http://127.0.0.1:1/deliver"}]})";
  const auto r = config_check(path.string(), {"HMAC_SECRET=x"}, dir);
  ASSERT_TRUE(r.exit_code.has_value()) << r.log;
  EXPECT_EQ(*r.exit_code, 2) << r.log;
  EXPECT_NE(r.log.find("kafka.properties.fetch.wait.max.ms"), std::string::npos) << r.log;
}

}  // namespace
}  // namespace courier::testing
