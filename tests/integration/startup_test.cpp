// `courier run` refuses, before it starts a thread or connects anywhere, what cannot work:
// it exits 2 at once naming the key, instead of staying up and delivering nothing.

#include <csignal>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/courier_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/wait_until.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

struct refusal {
  std::optional<int> exit_code;
  std::string log;
};

// Runs `courier <command...> --config FILE` on a config whose one route has `url` and whose
// kafka.properties are `properties` (a JSON object).
refusal run_with(std::vector<std::string> command, const std::string& url,
                 const std::string& properties) {
  const temp_dir dir{"startup"};
  const auto path = dir.path() / "courier.json";
  std::ofstream{path} << R"({"kafka": {"brokers": "127.0.0.1:1", "properties": )" << properties
                      << R"(}, "routes": [{"name": "shipments", "topic": "brew.shipments.v1",
    "url": ")" << url << R"("}]})";
  command.insert(command.end(), {"--config", path.string()});
  courier_process courier{command, {"HMAC_SECRET=x"}, (dir.path() / "log").string()};
  // Far above "within a second": a refusal happens before any connection is tried.
  const auto code = courier.wait_exit(10s);
  return {code, courier.log()};
}

TEST(CourierStartup, AnInvalidKafkaPropertyValueExits2NamingTheKey) {
  const auto r =
      run_with({"run"}, "http://127.0.0.1:8090/deliver", R"({"fetch.wait.max.ms": "banana"})");
  ASSERT_TRUE(r.exit_code.has_value()) << "courier stayed up\n" << r.log;
  EXPECT_EQ(*r.exit_code, 2) << r.log;
  EXPECT_NE(r.log.find("kafka.properties.fetch.wait.max.ms"), std::string::npos) << r.log;
}

TEST(CourierStartup, AnUnknownKafkaPropertyExits2NamingTheKeyInRunAndTopicsEnsure) {
  for (const auto& command : std::vector<std::vector<std::string>>{{"run"}, {"topics", "ensure"}}) {
    SCOPED_TRACE(command.front());
    const auto r =
        run_with(command, "http://127.0.0.1:8090/deliver", R"({"no.such.property": "1"})");
    ASSERT_TRUE(r.exit_code.has_value()) << "courier stayed up\n" << r.log;
    EXPECT_EQ(*r.exit_code, 2) << r.log;
    EXPECT_NE(r.log.find("kafka.properties.no.such.property"), std::string::npos) << r.log;
  }
}

TEST(CourierStartup, AnUnreadableCaFileExits2NamingItsKey) {
  const temp_dir dir{"startup-ca"};
  const auto path = dir.path() / "courier.json";
  std::ofstream{path} << R"({"kafka": {"brokers": "127.0.0.1:1"}, "routes": [{"name": "shipments",
    "topic": "brew.shipments.v1", "url": "https://partner.example/webhooks",
    "tls": {"ca_file": "/nonexistent/ca.pem"}}]})";
  courier_process courier{
      {"run", "--config", path.string()}, {"HMAC_SECRET=x"}, (dir.path() / "log").string()};
  const auto code = courier.wait_exit(10s);
  ASSERT_TRUE(code.has_value()) << "courier stayed up\n" << courier.log();
  EXPECT_EQ(*code, 2) << courier.log();
  EXPECT_NE(courier.log().find("routes[0].tls.ca_file"), std::string::npos) << courier.log();
  EXPECT_NE(courier.log().find("/nonexistent/ca.pem"), std::string::npos) << courier.log();
}

TEST(CourierStartup, APortOutOfRangeExits2NamingTheRoute) {
  const auto r = run_with({"run"}, "http://127.0.0.1:99999/deliver", "{}");
  ASSERT_TRUE(r.exit_code.has_value()) << "courier stayed up\n" << r.log;
  EXPECT_EQ(*r.exit_code, 2) << r.log;
  EXPECT_NE(r.log.find("routes[0].url"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("99999"), std::string::npos) << r.log;
}

// A valid configuration whose broker does not answer: the start-up checks wait on it (10 s),
// and SIGTERM meanwhile ends the process at once instead of after the wait.
TEST(CourierStartup, SigtermWhileTheStartUpChecksWaitOnTheBrokerExitsAtOnce) {
  const temp_dir dir{"startup-sigterm", temp_dir::keep_if_failed};
  const auto path = dir.path() / "courier.json";
  std::ofstream{path} << R"({"kafka": {"brokers": "127.0.0.1:1"}, "admin": {"listen": "off"},
    "routes": [{"name": "shipments",
    "topic": "brew.shipments.v1", "url": "http://127.0.0.1:8090/deliver"}]})";
  courier_process courier{
      {"run", "--config", path.string()}, {"HMAC_SECRET=x"}, (dir.path() / "log").string()};
  ASSERT_TRUE(wait_until(
      [&] { return courier.log().find("\"event\":\"courier starting\"") != std::string::npos; },
      10s))
      << courier.log();
  courier.signal(SIGTERM);
  // Well below the 10 s the topic check waits for an unreachable broker.
  const auto code = courier.wait_exit(4s);
  ASSERT_TRUE(code.has_value()) << "SIGTERM did not end the start-up\n" << courier.log();
  EXPECT_EQ(*code, 0) << courier.log();
  EXPECT_NE(courier.log().find("stopped before start"), std::string::npos) << courier.log();
}

// Its log goes to a file here, which is no terminal: without --log-format the lines are JSON
// (the test above waits on one); --log-format human asks for human lines all the same.
TEST(CourierStartup, LogFormatHumanWritesHumanLinesToAFileToo) {
  const temp_dir dir{"startup-human", temp_dir::keep_if_failed};
  const auto path = dir.path() / "courier.json";
  std::ofstream{path} << R"({"kafka": {"brokers": "127.0.0.1:1"}, "admin": {"listen": "off"},
    "routes": [{"name": "shipments",
    "topic": "brew.shipments.v1", "url": "http://127.0.0.1:8090/deliver"}]})";
  courier_process courier{{"run", "--log-format", "human", "--config", path.string()},
                          {"HMAC_SECRET=x"},
                          (dir.path() / "log").string()};
  ASSERT_TRUE(wait_until(
      [&] { return courier.log().find(" INFO  courier starting ") != std::string::npos; }, 10s))
      << courier.log();
  courier.signal(SIGTERM);
  const auto code = courier.wait_exit(4s);
  ASSERT_TRUE(code.has_value()) << courier.log();
  EXPECT_EQ(*code, 0) << courier.log();
  EXPECT_EQ(courier.log().find("\"event\":"), std::string::npos) << "no JSON line\n"
                                                                 << courier.log();
}

// No broker at kafka.brokers (127.0.0.1:1 refuses): `topics ensure` says so in one line naming
// the address and what to do, at once, instead of librdkafka's lines and a metadata error after
// its timeouts; `run` says it at once in its log, and the same line when its topic check fails.
TEST(CourierStartup, AnUnreachableBrokerIsOneLineNamingTheAddressAndWhatToDo) {
  const auto ensure = run_with({"topics", "ensure"}, "http://127.0.0.1:8090/deliver", "{}");
  ASSERT_TRUE(ensure.exit_code.has_value()) << "courier stayed up\n" << ensure.log;
  EXPECT_EQ(*ensure.exit_code, 1) << ensure.log;
  EXPECT_NE(ensure.log.find("cannot reach the Kafka broker at 127.0.0.1:1 (127.0.0.1:1: "
                            "Connection refused): start one (`make kafka-up`"),
            std::string::npos)
      << ensure.log;
  EXPECT_EQ(ensure.log.find("librdkafka"), std::string::npos) << "no client was made\n"
                                                              << ensure.log;

  const temp_dir dir{"startup-unreachable", temp_dir::keep_if_failed};
  const auto path = dir.path() / "courier.json";
  std::ofstream{path} << R"({"kafka": {"brokers": "127.0.0.1:1"}, "admin": {"listen": "off"},
    "routes": [{"name": "shipments",
    "topic": "brew.shipments.v1", "url": "http://127.0.0.1:8090/deliver"}]})";
  courier_process courier{
      {"run", "--config", path.string()}, {"HMAC_SECRET=x"}, (dir.path() / "log").string()};
  ASSERT_TRUE(wait_until(
      [&] {
        return courier.log().find("\"event\":\"the Kafka broker is unreachable\"") !=
               std::string::npos;
      },
      10s))
      << courier.log();
  const auto code = courier.wait_exit(30s);
  ASSERT_TRUE(code.has_value()) << courier.log();
  EXPECT_EQ(*code, 1) << courier.log();
  EXPECT_NE(courier.log().find("courier: cannot reach the Kafka broker at 127.0.0.1:1"),
            std::string::npos)
      << courier.log();
}

TEST(CourierStartup, AnUnknownLogFormatExits2NamingItAndTheChoices) {
  const auto r = run_with({"run", "--log-format", "text"}, "http://127.0.0.1:8090/deliver", "{}");
  ASSERT_TRUE(r.exit_code.has_value()) << "courier stayed up\n" << r.log;
  EXPECT_EQ(*r.exit_code, 2) << r.log;
  for (const char* needle : {"--log-format", "text", "auto", "human", "json"}) {
    EXPECT_NE(r.log.find(needle), std::string::npos) << needle << " in " << r.log;
  }
}

}  // namespace
}  // namespace courier::testing
