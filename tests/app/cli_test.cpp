#include "app/cli.hpp"

#include <chrono>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/fake_env.hpp"
#include "tests/support/temp_dir.hpp"

namespace courier::app {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using ::testing::HasSubstr;
using ::testing::Not;
using courier::testing::fake_env;
using courier::testing::temp_dir;

cli_result parse(std::initializer_list<const char*> args) {
  std::vector<const char*> argv{"courier"};
  argv.insert(argv.end(), args.begin(), args.end());
  return parse_cli(static_cast<int>(argv.size()), argv.data());
}

cli_command command_of(std::initializer_list<const char*> args) {
  cli_result r = parse(args);
  EXPECT_TRUE(r.command.has_value()) << r.message;
  return r.command.value_or(cli_command{});
}

// A usage error: no command, exit 2, one line naming `needle`.
void expect_usage_error(std::initializer_list<const char*> args, const std::string& needle) {
  const cli_result r = parse(args);
  EXPECT_FALSE(r.command.has_value());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.message, HasSubstr(needle));
  EXPECT_THAT(r.message, Not(HasSubstr("\n")));
}

config_error resolve_error_of(const cli_command& cmd, const getenv_function& env) {
  try {
    resolve_config(cmd, env);
  } catch (const config_error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a config_error";
  return config_error{"", ""};
}

constexpr const char* file_config = R"({
  "kafka": {"brokers": "file:9092"},
  "routes": [{"name": "shipments", "topic": "brew.shipments.v1",
              "url": "http://file/deliver", "pause_after": "20s",
              "breaker": {"trip_after": 3, "open_timeout": "30s"}}]})";

TEST(Cli, RunDefaultsToTheShippedConfigAndNoOverrides) {
  const cli_command cmd = command_of({"run"});
  EXPECT_EQ(cmd.what, cli_command::kind::run);
  EXPECT_EQ(cmd.config_path, fs::path{"topology/courier.json"});
  EXPECT_EQ(cmd.log_level, "info");
  EXPECT_EQ(cmd.flags.brokers, std::nullopt);
  EXPECT_EQ(cmd.flags.webhook_url, std::nullopt);
  EXPECT_EQ(cmd.flags.hmac_secret, std::nullopt);
  EXPECT_EQ(cmd.flags.cb_trip_after, std::nullopt);
  EXPECT_EQ(cmd.flags.pause_after, std::nullopt);
  EXPECT_EQ(cmd.flags.cb_open_timeout, std::nullopt);
}

TEST(Cli, RunTakesTheConfigPathAndEveryOverrideFlag) {
  const cli_command cmd = command_of({"run", "--config", "/etc/courier.json", "--cb-trip-after",
                                      "3", "--pause-after", "30s", "--cb-open-timeout", "1m",
                                      "--brokers", "b:9092", "--webhook-url", "http://h/x"});
  EXPECT_EQ(cmd.config_path, fs::path{"/etc/courier.json"});
  EXPECT_EQ(cmd.flags.cb_trip_after, 3);
  EXPECT_EQ(cmd.flags.pause_after, milliseconds{30000});
  EXPECT_EQ(cmd.flags.cb_open_timeout, milliseconds{60000});
  EXPECT_EQ(cmd.flags.brokers, "b:9092");
  EXPECT_EQ(cmd.flags.webhook_url, "http://h/x");
}

TEST(Cli, AdminTokenFileReadsTheTokenWithoutItsTrailingNewlines) {
  const temp_dir dir;
  const fs::path file = dir.write("admin-token", "tok-3n\r\n\n");
  EXPECT_EQ(command_of({"run"}).flags.admin_token, std::nullopt);
  for (const char* command : {"run", "demo"}) {
    const cli_command cmd =
        command_of({command, "--admin-token-file", file.c_str(), "--admin-listen", "off"});
    EXPECT_EQ(cmd.flags.admin_token, "tok-3n") << command;
  }
}

TEST(Cli, AnUnreadableOrEmptyAdminTokenFileNamesTheFlagNotTheContent) {
  const temp_dir dir;
  const fs::path empty = dir.write("empty", "\n");
  expect_usage_error({"run", "--admin-token-file", "/nonexistent/token"}, "--admin-token-file");
  expect_usage_error({"run", "--admin-token-file", empty.c_str()}, "--admin-token-file");
  expect_usage_error({"run", "--admin-token-file", dir.path().c_str()}, "--admin-token-file");
  expect_usage_error({"run", "--admin-token-file", empty.c_str()}, "is empty");
}

TEST(Cli, AdminTokenFileOverridesAdminTokenOfTheFile) {
  const temp_dir dir;
  const fs::path token = dir.write("token", "from-flag\n");
  const fs::path config = dir.write("c.json", R"({"admin": {"token": "from-file"},
    "routes": [{"name": "shipments", "topic": "brew.shipments.v1", "url": "http://h/x"}]})");
  const cli_command cmd =
      command_of({"run", "--config", config.c_str(), "--admin-token-file", token.c_str()});
  EXPECT_EQ(resolve_config(cmd, fake_env({{"HMAC_SECRET", "s"}})).admin.token, "from-flag");
}

TEST(Cli, DemoHasTheDocumentedDefaults) {
  const cli_command cmd = command_of({"demo"});
  EXPECT_EQ(cmd.what, cli_command::kind::demo);
  EXPECT_EQ(cmd.demo.records, 1000U);
  EXPECT_EQ(cmd.demo.partitions, 4);
  EXPECT_EQ(cmd.demo.fail_rate_503, 0.0);
  EXPECT_EQ(cmd.demo.fail_rate_timeout, 0.0);
  EXPECT_EQ(cmd.demo.latency, milliseconds{0});
  EXPECT_EQ(cmd.demo.outage, milliseconds{0});
  EXPECT_EQ(cmd.demo.seed, 42U);
  EXPECT_TRUE(cmd.demo.progress);
}

TEST(Cli, DemoTakesEveryFlag) {
  const cli_command cmd = command_of({"demo",
                                      "--records",
                                      "50",
                                      "--partitions",
                                      "2",
                                      "--fail-rate-503",
                                      "0.25",
                                      "--fail-rate-timeout",
                                      "0.1",
                                      "--latency-ms",
                                      "15",
                                      "--outage",
                                      "1.5",
                                      "--seed",
                                      "18446744073709551615",
                                      "--no-progress",
                                      "--cb-trip-after",
                                      "2",
                                      "--pause-after",
                                      "500ms",
                                      "--cb-open-timeout",
                                      "2s",
                                      "--webhook-url",
                                      "http://h/x",
                                      "--brokers",
                                      "b:1"});
  EXPECT_EQ(cmd.demo.records, 50U);
  EXPECT_EQ(cmd.demo.partitions, 2);
  EXPECT_DOUBLE_EQ(cmd.demo.fail_rate_503, 0.25);
  EXPECT_DOUBLE_EQ(cmd.demo.fail_rate_timeout, 0.1);
  EXPECT_EQ(cmd.demo.latency, milliseconds{15});
  EXPECT_EQ(cmd.demo.outage, milliseconds{1500});
  EXPECT_EQ(cmd.demo.seed, 18446744073709551615ULL);
  EXPECT_FALSE(cmd.demo.progress);
  EXPECT_EQ(cmd.flags.cb_trip_after, 2);
  EXPECT_EQ(cmd.flags.pause_after, milliseconds{500});
  EXPECT_EQ(cmd.flags.cb_open_timeout, milliseconds{2000});
  EXPECT_EQ(cmd.flags.webhook_url, "http://h/x");
  EXPECT_EQ(cmd.flags.brokers, "b:1");
}

TEST(Cli, VersionIsACommand) {
  EXPECT_EQ(command_of({"version"}).what, cli_command::kind::version);
}

TEST(Cli, AuditTakesARouteARangeJsonAndATimeout) {
  const auto cmd = command_of({"audit", "--config", "c.json", "--route", "shipments", "--from",
                               "2h", "--until", "0:10,1:20", "--json", "--timeout", "5s"});
  EXPECT_EQ(cmd.what, cli_command::kind::audit);
  EXPECT_EQ(cmd.config_path, fs::path{"c.json"});
  EXPECT_EQ(cmd.audit.route, "shipments");
  EXPECT_EQ(cmd.audit.from, std::optional<std::string>{"2h"});
  EXPECT_EQ(cmd.audit.until, std::optional<std::string>{"0:10,1:20"});
  EXPECT_TRUE(cmd.audit.json);
  EXPECT_EQ(cmd.audit.timeout, milliseconds{5000});
  const auto plain = command_of({"audit", "--route", "r"});
  EXPECT_FALSE(plain.audit.json);
  EXPECT_FALSE(plain.audit.from.has_value());
  EXPECT_EQ(plain.audit.timeout, milliseconds{30000});
  expect_usage_error({"audit"}, "--route");
  expect_usage_error({"audit", "--route", "r", "--timeout", "soon"}, "--timeout");
}

// The file config read for a command `what` with no secret in the environment: its routes.
std::size_t routes_without_secrets(cli_command::kind what) {
  const temp_dir dir;
  cli_command cmd;
  cmd.what = what;
  cmd.config_path = dir.write("c.json", file_config);
  return resolve_config(cmd, fake_env({})).routes.size();
}

TEST(Cli, AuditNeedsNoSecretItSendsNothing) {
  EXPECT_EQ(routes_without_secrets(cli_command::kind::audit), 1U);
}

TEST(Cli, ReplayTakesARouteAnEndpointARangeADryRunAndARate) {
  const auto cmd = command_of({"replay", "--config", "c.json", "--route", "shipments", "--endpoint",
                               "zoom", "--since", "2026-12-01T10:00:00Z", "--until", "1h",
                               "--dry-run", "--rate", "200"});
  EXPECT_EQ(cmd.what, cli_command::kind::replay);
  EXPECT_EQ(cmd.replay.route, "shipments");
  EXPECT_EQ(cmd.replay.endpoint, std::optional<std::string>{"zoom"});
  EXPECT_EQ(cmd.replay.since, "2026-12-01T10:00:00Z");
  EXPECT_EQ(cmd.replay.until, std::optional<std::string>{"1h"});
  EXPECT_TRUE(cmd.replay.dry_run);
  EXPECT_EQ(cmd.replay.rate, 200.0);
  const auto plain = command_of({"replay", "--route", "r", "--since", "2h"});
  EXPECT_FALSE(plain.replay.endpoint.has_value());
  EXPECT_FALSE(plain.replay.dry_run);
  expect_usage_error({"replay", "--route", "r"}, "--since");
  expect_usage_error({"replay", "--since", "2h"}, "--route");
  expect_usage_error({"replay", "--route", "r", "--since", "2h", "--rate", "-1"}, "--rate");
}

TEST(Cli, ReplayNeedsNoSecretTheServiceDeliversItsCopies) {
  EXPECT_EQ(routes_without_secrets(cli_command::kind::replay), 1U);
}

TEST(Cli, LogLevelWorksBeforeAndAfterTheSubcommand) {
  EXPECT_EQ(command_of({"--log-level", "debug", "run"}).log_level, "debug");
  EXPECT_EQ(command_of({"demo", "--log-level", "warn"}).log_level, "warn");
  expect_usage_error({"--log-level", "loud", "run"}, "--log-level");
}

TEST(Cli, LogFormatIsAutoUnlessToldAndWorksBeforeAndAfterTheSubcommand) {
  EXPECT_EQ(command_of({"run"}).log_format, "auto");
  EXPECT_EQ(command_of({"--log-format", "human", "run"}).log_format, "human");
  EXPECT_EQ(command_of({"demo", "--log-format", "json"}).log_format, "json");
  EXPECT_EQ(command_of({"demo", "--log-format", "auto"}).log_format, "auto");
}

TEST(Cli, AnUnknownLogFormatIsAnErrorNamingTheValueAndTheChoices) {
  for (const char* needle : {"--log-format", "text", "auto", "human", "json"}) {
    expect_usage_error({"run", "--log-format", "text"}, needle);
  }
}

TEST(Cli, HelpIsPrintedWithExitCodeZero) {
  const cli_result top = parse({"--help"});
  EXPECT_FALSE(top.command.has_value());
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_THAT(top.message, HasSubstr("demo"));
  EXPECT_THAT(top.message, HasSubstr("--log-level"));

  const cli_result demo = parse({"demo", "--help"});
  EXPECT_EQ(demo.exit_code, 0);
  EXPECT_THAT(demo.message, HasSubstr("--fail-rate-503"));
}

TEST(Cli, ASubcommandIsRequired) {
  const cli_result r = parse({});
  EXPECT_FALSE(r.command.has_value());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.message, HasSubstr("a command is required"));
}

TEST(Cli, ABadDurationNamesTheFlagAndTheAcceptedForms) {
  expect_usage_error({"run", "--pause-after", "10x"}, "--pause-after");
  expect_usage_error({"run", "--pause-after", "10x"}, "500ms, 3s, 5m, 1h");
  expect_usage_error({"run", "--cb-open-timeout", "-1s"}, "--cb-open-timeout");
  expect_usage_error({"demo", "--outage", "soon"}, "--outage");
}

TEST(Cli, ABadNumberNamesTheFlag) {
  expect_usage_error({"run", "--cb-trip-after", "0"}, "--cb-trip-after");
  expect_usage_error({"run", "--cb-trip-after=-3"}, "--cb-trip-after");
  expect_usage_error({"run", "--cb-trip-after", "3x"}, "--cb-trip-after");
  expect_usage_error({"demo", "--records", "abc"}, "--records");
  expect_usage_error({"demo", "--partitions", "0"}, "--partitions");
  expect_usage_error({"demo", "--latency-ms", "1.5"}, "--latency-ms");
  expect_usage_error({"demo", "--seed", "-1"}, "--seed");
}

TEST(Cli, AFailRateOutsideZeroToOneNamesTheFlag) {
  expect_usage_error({"demo", "--fail-rate-503", "1.5"}, "--fail-rate-503");
  expect_usage_error({"demo", "--fail-rate-timeout=-0.1"}, "--fail-rate-timeout");
  expect_usage_error({"demo", "--fail-rate-503", "nan"}, "--fail-rate-503");
  EXPECT_DOUBLE_EQ(command_of({"demo", "--fail-rate-503", "1"}).demo.fail_rate_503, 1.0);
}

TEST(Cli, ANonHttpWebhookUrlNamesTheFlag) {
  expect_usage_error({"run", "--webhook-url", "ftp://h"}, "--webhook-url");
}

TEST(Cli, UnknownFlagsAndDemoFlagsOnRunAreUsageErrors) {
  expect_usage_error({"run", "--bogus"}, "--bogus");
  expect_usage_error({"run", "--records", "5"}, "--records");
  expect_usage_error({"deploy"}, "deploy");
}

TEST(Cli, RunResolvesTheConfigFile) {
  const temp_dir dir;
  cli_command cmd;
  cmd.config_path = dir.write("c.json", file_config);
  const courier_config cfg = resolve_config(cmd, fake_env({{"HMAC_SECRET", "s"}}));
  EXPECT_EQ(cfg.kafka.brokers, "file:9092");
  ASSERT_EQ(cfg.routes.size(), 1U);
  EXPECT_EQ(cfg.routes[0].url, "http://file/deliver");
  EXPECT_EQ(cfg.routes[0].hmac_secret, "s");
  EXPECT_EQ(cfg.routes[0].breaker.trip_after, 3);
  EXPECT_EQ(cfg.routes[0].pause_after, milliseconds{20000});
  EXPECT_EQ(cfg.routes[0].breaker.open_timeout, milliseconds{30000});
}

TEST(Cli, TheEnvironmentOverridesTheFile) {
  const temp_dir dir;
  cli_command cmd;
  cmd.config_path = dir.write("c.json", file_config);
  const courier_config cfg = resolve_config(cmd, fake_env({{"HMAC_SECRET", "s"},
                                                           {"KAFKA_BROKERS", "env:9092"},
                                                           {"WEBHOOK_URL", "http://env/deliver"}}));
  EXPECT_EQ(cfg.kafka.brokers, "env:9092");
  EXPECT_EQ(cfg.routes[0].url, "http://env/deliver");
}

TEST(Cli, FlagsOverrideTheEnvironmentAndTheFile) {
  const temp_dir dir;
  const std::string path = dir.write("c.json", file_config).string();
  const cli_command cmd = command_of({"run", "--config", path.c_str(), "--brokers", "flag:9092",
                                      "--webhook-url", "http://flag/deliver", "--cb-trip-after",
                                      "9", "--pause-after", "1m", "--cb-open-timeout", "45s"});
  const courier_config cfg = resolve_config(cmd, fake_env({{"HMAC_SECRET", "s"},
                                                           {"KAFKA_BROKERS", "env:9092"},
                                                           {"WEBHOOK_URL", "http://env/deliver"}}));
  EXPECT_EQ(cfg.kafka.brokers, "flag:9092");
  EXPECT_EQ(cfg.routes[0].url, "http://flag/deliver");
  EXPECT_EQ(cfg.routes[0].breaker.trip_after, 9);
  EXPECT_EQ(cfg.routes[0].pause_after, milliseconds{60000});
  EXPECT_EQ(cfg.routes[0].breaker.open_timeout, milliseconds{45000});
}

TEST(Cli, RunTakesTheSecretFromHmacSecretFile) {
  const temp_dir dir;
  cli_command cmd;
  cmd.config_path = dir.write("c.json", file_config);
  const fs::path secret = dir.write("secret", "from-file\n");
  const courier_config cfg = resolve_config(cmd, fake_env({{"HMAC_SECRET_FILE", secret.string()}}));
  EXPECT_EQ(cfg.routes[0].hmac_secret, "from-file");
}

TEST(Cli, RunWithoutASecretFailsNamingTheKey) {
  const temp_dir dir;
  cli_command cmd;
  cmd.config_path = dir.write("c.json", file_config);
  EXPECT_EQ(resolve_error_of(cmd, fake_env({})).key(), "routes[0].hmac_secret");
}

TEST(Cli, RunWithAMissingConfigFileNamesTheFile) {
  cli_command cmd;
  cmd.config_path = "/nonexistent/courier.json";
  EXPECT_EQ(resolve_error_of(cmd, fake_env({{"HMAC_SECRET", "s"}})).key(),
            "/nonexistent/courier.json");
}

TEST(Cli, RunResolvesTheShippedTopology) {
  cli_command cmd;
  cmd.config_path = fs::path{COURIER_SOURCE_DIR} / "topology/courier.json";
  const courier_config cfg = resolve_config(cmd, fake_env({{"HMAC_SECRET", "s"}}));
  ASSERT_EQ(cfg.routes.size(), 1U);
  EXPECT_EQ(cfg.routes[0].topic, "brew.shipments.v1");
}

TEST(Cli, DemoBuildsItsOwnShipmentsRoute) {
  cli_command cmd;
  cmd.what = cli_command::kind::demo;
  const courier_config cfg = resolve_config(cmd, fake_env({}));
  ASSERT_EQ(cfg.routes.size(), 1U);
  const route_config& r = cfg.routes[0];
  EXPECT_EQ(r.name, "shipments");
  EXPECT_EQ(r.topic, "brew.shipments.v1");
  EXPECT_EQ(r.url, demo_webhook_placeholder);
  EXPECT_EQ(r.hmac_secret, "demo-secret");
  EXPECT_TRUE(signs_with(r, signing_scheme::standard_webhooks));
  EXPECT_EQ(r.signing.secrets.size(), 1U);
  EXPECT_EQ(r.breaker.trip_after, 5);
}

TEST(Cli, DemoTakesTheSecretAndFlagsFromOverrides) {
  const cli_command cmd = command_of({"demo", "--cb-trip-after", "2"});
  const courier_config cfg = resolve_config(cmd, fake_env({{"HMAC_SECRET", "env-secret"}}));
  EXPECT_EQ(cfg.routes[0].hmac_secret, "env-secret");
  EXPECT_EQ(cfg.routes[0].breaker.trip_after, 2);
}

}  // namespace
}  // namespace courier::app
