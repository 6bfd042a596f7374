#include <fcntl.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "core/kafka/admin.hpp"
#include "core/kafka/error.hpp"
#include "tests/integration/stand.hpp"
#include "tests/support/courier_json.hpp"
#include "tests/support/courier_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "topology/topics.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

// The stand's configuration as the file `courier run` reads, fetching without delay, with the
// admin listener on a free port (tests run in parallel; the default port is one for all).
std::filesystem::path write_config(const stand& s, const std::filesystem::path& dir) {
  courier_config cfg = s.cfg;
  cfg.kafka.properties["fetch.wait.max.ms"] = "10";
  const auto path = courier::testing::write_config(cfg, dir);
  nlohmann::json doc = nlohmann::json::parse(std::ifstream{path});
  doc["admin"] = {{"listen", "127.0.0.1:0"}};
  std::ofstream{path} << doc.dump(2);
  return path;
}

TEST(CourierRun, DeliversThenStopsOnSigtermAndCommitsWhatItDelivered) {
  stand s{2};
  // A consumer's property, which the retry router's producer does not take (it would warn), and
  // a deprecated one, about which every client warns.
  s.cfg.kafka.properties["auto.commit.interval.ms"] = "1000";
  s.cfg.kafka.properties["reconnect.backoff.jitter.ms"] = "0";
  s.seed(200);
  const temp_dir scratch{"service-sigterm", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  courier_process courier{{"run", "--config", write_config(s, dir).string()},
                          {"HMAC_SECRET=" + test_secret()},
                          (dir / "courier.log").string()};
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 200; }, 60s))
      << "delivered: " << s.receiver->snapshot().ok << "\n"
      << courier.log();
  courier.signal(SIGTERM);
  const auto code = courier.wait_exit(30s);
  ASSERT_TRUE(code.has_value()) << "courier did not stop on SIGTERM\n" << courier.log();
  EXPECT_EQ(*code, 0) << courier.log();
  const auto log = courier.log();
  EXPECT_NE(log.find("\"signal\":\"SIGTERM\""), std::string::npos) << log;
  EXPECT_NE(log.find("\"event\":\"consumer closed\""), std::string::npos) << log;
  EXPECT_EQ(log.find("integration-secret"), std::string::npos) << "the secret leaked into logs";
  // Every line is a JSON event, librdkafka's own among them (not its "%4|...|CONFWARN|" format).
  std::istringstream lines{log};
  std::string line;
  bool librdkafka_warned = false;
  while (std::getline(lines, line)) {
    const auto doc = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(doc.is_object()) << "not a JSON event: " << line;
    const bool confwarn =
        doc.value("event", "") == "librdkafka" && doc.value("facility", "") == "CONFWARN";
    librdkafka_warned = librdkafka_warned || (confwarn && doc.value("level", "") == "warn");
    EXPECT_FALSE(confwarn &&
                 doc.value("message", "").find("auto.commit.interval.ms") != std::string::npos)
        << "a client was given a property that is not its own: " << line;
  }
  EXPECT_TRUE(librdkafka_warned) << log;

  EXPECT_EQ(s.committed_total(), 200)
      << "everything delivered is committed, so a restart fetches none of it";
  EXPECT_EQ(s.receiver->snapshot().duplicates, 0U);
}

TEST(CourierRun, AFinalCommitThatFailsAtSigtermExitsNonZeroAndSaysSo) {
  stand s{2};
  s.cfg.kafka.properties["auto.commit.interval.ms"] = "600000";  // the final commit is the first
  s.seed(50);
  const temp_dir scratch{"service-commit-fails", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  courier_process courier{{"run", "--config", write_config(s, dir).string()},
                          {"HMAC_SECRET=" + test_secret()},
                          (dir / "courier.log").string()};
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 50; }, 60s))
      << "delivered: " << s.receiver->snapshot().ok << "\n"
      << courier.log();
  s.cluster.push_request_errors(
      8 /* OffsetCommit */,
      std::vector<rd_kafka_resp_err_t>(5, RD_KAFKA_RESP_ERR_OFFSET_METADATA_TOO_LARGE));
  courier.signal(SIGTERM);
  const auto code = courier.wait_exit(30s);
  ASSERT_TRUE(code.has_value()) << "courier did not stop on SIGTERM\n" << courier.log();
  EXPECT_EQ(*code, 1) << courier.log();
  const auto log = courier.log();
  EXPECT_NE(log.find("\"event\":\"stopped with problems\""), std::string::npos) << log;
  EXPECT_NE(log.find("consumer of route shipments"), std::string::npos) << log;
  EXPECT_EQ(log.find("\"event\":\"stopped\""), std::string::npos) << log;
  EXPECT_EQ(s.committed_total(), 0) << "the commit was refused";
}

// The topic checks reach the cluster as the consumer will: with kafka.properties' security
// settings (here SSL, which this plaintext cluster cannot answer), not with bootstrap.servers
// alone.
TEST(CourierRun, TheTopicCheckConnectsWithTheSecuritySettingsOfKafkaProperties) {
  stand s{1};
  EXPECT_TRUE(topology::missing_topics(s.cfg, 5s).empty());
  s.cfg.kafka.properties["security.protocol"] = "ssl";
  EXPECT_THROW(topology::missing_topics(s.cfg, 2s), kafka::kafka_error);
}

TEST(CourierRun, RefusesToStartWhenATierOrTheDlqTopicIsMissing) {
  stand s{1};
  const temp_dir scratch{"service-missing", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  s.route().topic = "orders.v1";  // none of its topics exist
  s.route().dlq_topic = "";
  courier_process courier{{"run", "--config", write_config(s, dir).string()},
                          {"HMAC_SECRET=x"},
                          (dir / "courier.log").string()};
  const auto code = courier.wait_exit(30s);
  ASSERT_TRUE(code.has_value()) << courier.log();
  EXPECT_EQ(*code, 2);
  const auto log = courier.log();
  EXPECT_NE(log.find("missing topics: orders.v1, orders.v1.retry-300ms, orders.v1.retry-600ms, "
                     "orders.dlq"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("courier topics ensure"), std::string::npos) << log;
}

TEST(CourierRun, ABadConfigValueNamesItsKeyAndExitsWith2) {
  const temp_dir scratch{"service-badconfig", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  const auto path = dir / "courier.json";
  std::ofstream{path} << R"({"routes": [{"name": "shipments", "topic": "brew.shipments.v1",
    "url": "http://127.0.0.1:8090/deliver", "breaker": {"trip_after": -3}}]})";
  courier_process courier{
      {"run", "--config", path.string()}, {"HMAC_SECRET=x"}, (dir / "courier.log").string()};
  const auto code = courier.wait_exit(10s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 2);
  EXPECT_NE(courier.log().find("routes[0].breaker.trip_after"), std::string::npos) << courier.log();
}

TEST(CourierRun, AMissingSecretIsAConfigurationError) {
  const temp_dir scratch{"service-nosecret", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  const auto path = dir / "courier.json";
  std::ofstream{path} << R"({"routes": [{"name": "shipments", "topic": "brew.shipments.v1",
    "url": "http://127.0.0.1:8090/deliver"}]})";
  courier_process courier{{"run", "--config", path.string()}, {}, (dir / "courier.log").string()};
  const auto code = courier.wait_exit(10s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 2);
  EXPECT_NE(courier.log().find("hmac_secret"), std::string::npos) << courier.log();
}

// `courier demo` end to end: embedded mock cluster, in-process receiver, the real pipeline,
// and an exit status that says whether every seeded record was accounted for.
TEST(CourierDemo, AccountsForEveryRecordWithTiersAndTheDlqAndExitsZero) {
  const temp_dir scratch{"service-demo", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  courier_process demo{{"demo", "--records", "300", "--fail-rate-503", "0.2", "--fail-rate-400",
                        "0.05", "--no-progress", "--admin-listen", "127.0.0.1:0"},
                       {},
                       (dir / "demo.log").string()};
  const auto code = demo.wait_exit(120s);
  ASSERT_TRUE(code.has_value()) << demo.log();
  EXPECT_EQ(*code, 0) << demo.log();
  const auto log = demo.log();
  EXPECT_NE(log.find("OK: every seeded record was delivered or is in the DLQ, once"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("http_4xx"), std::string::npos) << "the DLQ row by error class\n" << log;
  EXPECT_NE(log.find("both delivered and in DLQ               0"), std::string::npos) << log;
}

TEST(CourierDemo, RefusesMoreRecordsThanTheMockClusterKeeps) {
  const temp_dir scratch{"service-demo-too-many", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  courier_process demo{
      {"demo", "--records", "100000", "--partitions", "1"}, {}, (dir / "demo.log").string()};
  const auto code = demo.wait_exit(30s);
  ASSERT_TRUE(code.has_value()) << demo.log();
  EXPECT_EQ(*code, 2);
  EXPECT_NE(demo.log().find("--records"), std::string::npos) << demo.log();
}

}  // namespace
}  // namespace courier::testing
