#include "tools/redrive/cli.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/support/redrive_config.hpp"

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace courier::redrive {
namespace {

// courier's config with the routes of the DLQs these tests name: "d" and brew.shipments.dlq.
const std::string& config_path() {
  static const std::string path = testing::write_redrive_config(
      std::filesystem::temp_directory_path() /
          ("courier-redrive-cli-test-" + std::to_string(::getpid()) + ".json"),
      {{"t.v1", "d"}, {"brew.shipments.v1", "brew.shipments.dlq"}});
  return path;
}

cli_result parse(std::vector<const char*> args, const char* brokers = nullptr) {
  args.insert(args.begin(), "redrive");
  return parse_cli(
      static_cast<int>(args.size()), args.data(),
      [brokers](const char* name) -> const char* {
        if (std::string_view{name} == "COURIER_CONFIG") {
          return config_path().c_str();
        }
        return std::string_view{name} == "KAFKA_BROKERS" ? brokers : nullptr;
      },
      10'000'000);
}

TEST(Cli, DefaultsFollowTheIssue) {
  const auto r = parse({"--from", "brew.shipments.dlq"});
  ASSERT_TRUE(r.opts) << r.message;
  EXPECT_EQ(r.opts->run.cluster.bootstrap, "127.0.0.1:9092");
  EXPECT_EQ(r.opts->run.ledger_topic, "brew.shipments.dlq.redriven");
  EXPECT_EQ(r.opts->run.max_redrives, 3);
  EXPECT_EQ(r.opts->what, options::mode::redrive);
}

TEST(Cli, BootstrapComesFromTheEnvironmentThenTheFlag) {
  EXPECT_EQ(parse({"--from", "d"}, "k:1").opts->run.cluster.bootstrap, "k:1");
  EXPECT_EQ(parse({"--from", "d", "--bootstrap", "b:2"}, "k:1").opts->run.cluster.bootstrap, "b:2");
}

// A secured cluster: every client of the run connects with the -X connection properties.
TEST(Cli, KafkaConnectionPropertiesGoToTheClusterEveryClientUses) {
  const auto r = parse({"--from", "d", "--bootstrap", "b:9093", "-X", "security.protocol=SASL_SSL",
                        "--kafka-property", "sasl.mechanism=PLAIN", "-X", "sasl.username=ops"});
  ASSERT_TRUE(r.opts) << r.message;
  const auto& at = r.opts->run.cluster;
  EXPECT_EQ(at.bootstrap, "b:9093");
  EXPECT_EQ(at.connection, (std::map<std::string, std::string>{{"sasl.mechanism", "PLAIN"},
                                                               {"sasl.username", "ops"},
                                                               {"security.protocol", "SASL_SSL"}}));
}

// The reader, the producer and the ledger keep what their correctness depends on: only how to
// connect is taken, and a value librdkafka refuses is named.
TEST(Cli, AKafkaPropertyThatIsNotAboutConnectingOrNotValidIsAUsageError) {
  for (const auto& [entry, says] : std::vector<std::pair<const char*, const char*>>{
           {"isolation.level=read_uncommitted", "only connection properties"},
           {"security.protocol", "expected KEY=VALUE"},
           {"=SSL", "expected KEY=VALUE"},
           {"security.protocol=carrier-pigeon", "security.protocol"}}) {
    const auto r = parse({"--from", "d", "-X", entry});
    EXPECT_FALSE(r.opts) << entry;
    EXPECT_EQ(r.exit_code, exit_usage) << entry;
    EXPECT_NE(r.message.find(says), std::string::npos) << r.message;
  }
}

TEST(Cli, ReadsFiltersAndModes) {
  const auto r = parse({"--from", "d", "--error-class", "a", "--error-class", "b", "--since", "1s",
                        "--origin-partition", "4", "--list", "--json"});
  ASSERT_TRUE(r.opts) << r.message;
  EXPECT_EQ(r.opts->run.select.error_classes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.opts->run.select.since_ms, 10'000'000 - 1000);
  EXPECT_EQ(r.opts->run.select.origin_partition, 4);
  EXPECT_EQ(r.opts->what, options::mode::list);
  EXPECT_TRUE(r.opts->json);
}

TEST(Cli, UsageErrorsExitWithTwoAndNameTheFlag) {
  for (const auto& args :
       std::vector<std::vector<const char*>>{{},
                                             {"--from", "d", "--limit", "0"},
                                             {"--from", "d", "--since", "soon"},
                                             {"--from", "d", "--list", "--stats"},
                                             {"--from", "d", "--show", "d:x:1"},
                                             {"--from", "d", "--since", "1s", "--until", "2s"},
                                             {"--from", "d", "--no-such-flag"}}) {
    const auto r = parse(args);
    EXPECT_FALSE(r.opts);
    EXPECT_EQ(r.exit_code, exit_usage) << r.message;
    EXPECT_EQ(r.message.rfind("redrive: ", 0), 0U) << r.message;
  }
}

// `--key "$KEY"` with KEY unset must not redrive the whole DLQ.
TEST(Cli, AFilterGivenAnEmptyValueIsAUsageErrorNamingIt) {
  for (const char* option :
       {"--error-class", "--origin-topic", "--origin-partition", "--since", "--until", "--key"}) {
    const auto r = parse({"--from", "d", option, ""});
    EXPECT_FALSE(r.opts) << option;
    EXPECT_EQ(r.exit_code, exit_usage) << option;
    EXPECT_NE(r.message.find(option), std::string::npos) << r.message;
  }
  const auto second = parse({"--from", "d", "--error-class", "a", "--error-class", ""});
  EXPECT_FALSE(second.opts);
  EXPECT_NE(second.message.find("--error-class"), std::string::npos) << second.message;
}

// `--to "$TOPIC"` with TOPIC unset must not send every record back to its origin topic.
TEST(Cli, AnOptionWithADefaultGivenAnEmptyValueIsAUsageErrorNamingIt) {
  for (const char* option : {"--to", "--ledger", "--bootstrap"}) {
    const auto r = parse({"--from", "d", option, ""});
    EXPECT_FALSE(r.opts) << option;
    EXPECT_EQ(r.exit_code, exit_usage) << option;
    EXPECT_NE(r.message.find(std::string{option} + ": empty value"), std::string::npos)
        << r.message;
  }
}

TEST(Cli, ABareNumberTimeIsRefusedWithBothFormsInTheMessage) {
  for (const char* option : {"--since", "--until"}) {
    const auto r = parse({"--from", "d", option, "90"});
    EXPECT_FALSE(r.opts) << option;
    EXPECT_EQ(r.exit_code, exit_usage) << option;
    EXPECT_NE(r.message.find(option), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("90s"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("2026-11-30T10:00:00Z"), std::string::npos) << r.message;
  }
}

TEST(Cli, ARunReturnsRecordsOnlyToTheSourcesOfTheDlqsRoutesFromCouriersConfig) {
  const auto r = parse({"--from", "brew.shipments.dlq"});
  ASSERT_TRUE(r.opts) << r.message;
  EXPECT_EQ(r.opts->run.home_topics, (std::set<std::string>{"brew.shipments.v1"}));
  const auto flag = parse({"--from", "d", "--config", config_path().c_str()});
  ASSERT_TRUE(flag.opts) << flag.message;
  EXPECT_EQ(flag.opts->run.home_topics, (std::set<std::string>{"t.v1"}));
}

TEST(Cli, ARunWithoutCouriersConfigOrATargetIsAUsageErrorAndAListingIsNot) {
  const auto no_env = [](const char*) -> const char* { return nullptr; };
  const auto run = [&](std::vector<const char*> args) {
    args.insert(args.begin(), "redrive");
    return parse_cli(static_cast<int>(args.size()), args.data(), no_env, 10'000'000);
  };
  const auto bare = run({"--from", "brew.shipments.dlq"});
  EXPECT_FALSE(bare.opts);
  EXPECT_EQ(bare.exit_code, exit_usage);
  EXPECT_NE(bare.message.find("--config"), std::string::npos) << bare.message;
  EXPECT_NE(bare.message.find("--to"), std::string::npos) << bare.message;
  EXPECT_FALSE(run({"--from", "brew.shipments.dlq", "--dry-run"}).opts);
  EXPECT_TRUE(run({"--from", "brew.shipments.dlq", "--to", "t"}).opts);
  EXPECT_TRUE(run({"--from", "brew.shipments.dlq", "--list"}).opts);
  EXPECT_TRUE(run({"--from", "brew.shipments.dlq", "--stats"}).opts);
}

TEST(Cli, ACouriersConfigWithoutARouteOfTheDlqOrUnreadableIsAUsageErrorNamingIt) {
  const auto other = parse({"--from", "no.route.dlq"});
  EXPECT_FALSE(other.opts);
  EXPECT_EQ(other.exit_code, exit_usage);
  EXPECT_NE(other.message.find("no route has no.route.dlq as its DLQ"), std::string::npos)
      << other.message;
  const auto missing = parse({"--from", "d", "--config", "/nonexistent/courier.json"});
  EXPECT_FALSE(missing.opts);
  EXPECT_NE(missing.message.find("/nonexistent/courier.json"), std::string::npos)
      << missing.message;
}

}  // namespace
}  // namespace courier::redrive
