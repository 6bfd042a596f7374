// `courier config check`: the configuration checked as `courier run` checks it before it starts
// (the reader, the validation, the start-up checks of kafka.properties, URLs and TLS), without
// connecting to a broker or a receiver.

#include <sys/stat.h>

#include <chrono>
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

TEST(ConfigCheck, TheThreePartnersExampleIsValidAndPrintsEachEndpointWithItsFilter) {
  const temp_dir dir{"config-check"};
  const auto r = config_check(std::string{COURIER_SOURCE_DIR} + "/topology/three-partners.json",
                              {"HMAC_SECRET=x"}, dir);
  ASSERT_TRUE(r.exit_code.has_value()) << "courier config check did not exit\n" << r.log;
  EXPECT_EQ(*r.exit_code, 0) << r.log;
  for (const auto* line :
       {"endpoint acme: https://hooks.acme.example:443", "filter: header \"x-partner\" equals",
        "filter: json /service equals \"express\"",
        "endpoint analytics:", "filter: none (every record)", "rate_limit: 50 requests/s"}) {
    EXPECT_NE(r.log.find(line), std::string::npos) << line << "\n" << r.log;
  }
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

// Every secret file is a regular file of at most 64 KiB: a device, a FIFO (with no writer, which
// must not hang start-up) or a 1 MB file exits 2 at once naming its key, through each kind of key.
TEST(ConfigCheck, ASecretFileThatIsADeviceAFifoOrTooLargeExits2AtOnceNamingTheKey) {
  const temp_dir dir{"config-check"};
  const auto fifo = dir.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto large = dir.write("large", std::string(std::size_t{1024} * 1024, 'x'));
  struct case_ {
    std::string route_extra;
    std::vector<std::string> env;
    std::string key;
  };
  const std::vector<case_> cases{
      {R"(, "hmac_secret_file": "/dev/zero")", {}, "routes[0].hmac_secret_file"},
      {R"(, "hmac_secret_file": ")" + fifo.string() + "\"", {}, "routes[0].hmac_secret_file"},
      {R"(, "hmac_secret_file": ")" + large.string() + "\"", {}, "routes[0].hmac_secret_file"},
      {R"(, "headers": {"X-Api-Key": {"file": ")" + fifo.string() + "\"}}",
       {"HMAC_SECRET=x"},
       "routes[0].headers.X-Api-Key.file"},
      {R"(, "url": {"file": "/dev/zero"})", {"HMAC_SECRET=x"}, "routes[0].url.file"},
      {"", {"HMAC_SECRET_FILE=" + large.string()}, "HMAC_SECRET_FILE"},
  };
  for (const auto& c : cases) {
    const auto started = std::chrono::steady_clock::now();
    const auto r = config_check(write_config(dir, c.route_extra), c.env, dir);
    ASSERT_TRUE(r.exit_code.has_value()) << c.key << ": courier config check did not exit\n"
                                         << r.log;
    EXPECT_EQ(*r.exit_code, 2) << c.key << "\n" << r.log;
    EXPECT_NE(r.log.find(c.key + ": "), std::string::npos) << r.log;
    EXPECT_LT(std::chrono::steady_clock::now() - started, 5s) << c.key;
  }
}

TEST(ConfigCheck, ABearerTokenOverHttpExits2UnlessTheRouteAllowsIt) {
  const temp_dir dir{"config-check"};
  const auto token = dir.write("token", "token \n");
  const std::string auth = R"(, "auth": {"bearer_token_file": ")" + token.string() + "\"}";
  auto r = config_check(write_config(dir, auth), {"HMAC_SECRET=x"}, dir);
  ASSERT_TRUE(r.exit_code.has_value()) << r.log;
  EXPECT_EQ(*r.exit_code, 2) << r.log;
  EXPECT_NE(r.log.find("routes[0].auth.bearer_token_file: "), std::string::npos) << r.log;
  r = config_check(write_config(dir, auth + R"(, "allow_insecure_http": true)"), {"HMAC_SECRET=x"},
                   dir);
  ASSERT_TRUE(r.exit_code.has_value()) << r.log;
  EXPECT_EQ(*r.exit_code, 0) << r.log;
}

}  // namespace
}  // namespace courier::testing
