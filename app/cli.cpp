#include "app/cli.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <utility>

#include <CLI/CLI.hpp>

#include "core/config/cli_checks.hpp"
#include "core/time/duration.hpp"

namespace courier::app {
namespace {

constexpr int usage_error_exit_code = 2;

std::optional<double> parse_rate(const std::string& text) {
  if (text.empty()) {
    return std::nullopt;
  }
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(value >= 0.0 && value <= 1.0)) {
    return std::nullopt;
  }
  return value;
}

CLI::Validator duration_check() {
  return argument_check([](const std::string& text) { return parse_duration(text).has_value(); },
                        "expected a duration such as 500ms, 3s, 5m, 1h or a number of seconds");
}

CLI::Validator rate_check() {
  return argument_check([](const std::string& text) { return parse_rate(text).has_value(); },
                        "expected a rate from 0 to 1");
}

CLI::Validator url_check() {
  return argument_check([](const std::string& text) { return has_http_scheme(text); },
                        "expected a URL starting with http:// or https://");
}

// The callbacks run only after the checks above passed, so the parses here
// cannot fail.
void add_override_flags(CLI::App& sub, config_overrides& flags) {
  sub.add_option_function<std::string>(
         "--brokers", [&flags](const std::string& v) { flags.brokers = v; },
         "Kafka bootstrap servers (overrides KAFKA_BROKERS and the file)")
      ->type_name("HOST:PORT[,...]");
  sub.add_option_function<std::string>(
         "--webhook-url", [&flags](const std::string& v) { flags.webhook_url = v; },
         "Webhook URL for every route (overrides WEBHOOK_URL and the file)")
      ->type_name("URL")
      ->check(url_check());
  sub.add_option_function<std::string>(
         "--cb-trip-after",
         [&flags](const std::string& v) {
           flags.cb_trip_after = static_cast<int>(*parse_unsigned(v));
         },
         "Consecutive failed deliveries that open a route's breaker")
      ->type_name("N")
      ->check(integer_check(1, std::numeric_limits<int>::max()));
  sub.add_option_function<std::string>(
         "--pause-after", [&flags](const std::string& v) { flags.pause_after = parse_duration(v); },
         "How long a breaker stays open before its partitions are paused")
      ->type_name("DURATION")
      ->check(duration_check());
  sub.add_option_function<std::string>(
         "--cb-open-timeout",
         [&flags](const std::string& v) { flags.cb_open_timeout = parse_duration(v); },
         "How long an open breaker waits before letting a probe through")
      ->type_name("DURATION")
      ->check(duration_check());
}

// run and demo: both serve the admin listener (and config check checks it as run would).
void add_admin_flag(CLI::App& sub, config_overrides& flags) {
  sub.add_option_function<std::string>(
         "--admin-listen", [&flags](const std::string& v) { flags.admin_listen = v; },
         "Admin HTTP listener (/metrics, /healthz, /readyz, /state), or off (overrides "
         "admin.listen; default 127.0.0.1:9464)")
      ->type_name("HOST:PORT|off")
      ->check(argument_check(
          [](const std::string& text) {
            return text == "off" || parse_listen_address(text).has_value();
          },
          "expected off or HOST:PORT (an IPv4 address, [IPv6] or localhost)"));
  // The token is read here, so an unreadable or empty file is a usage error naming the flag;
  // the path is in argv, the token is not.
  sub.add_option_function<std::string>(
         "--admin-token-file",
         [&flags](const std::string& path) {
           try {
             flags.admin_token = read_secret_file(path, "--admin-token-file");
           } catch (const config_error& e) {
             throw CLI::ValidationError{"--admin-token-file", e.problem()};
           }
         },
         "File holding the bearer token POST /routes/<name>/pause and /resume require, its "
         "content without trailing newlines (overrides admin.token and admin.token_file)")
      ->type_name("PATH");
}

void add_demo_flags(CLI::App& sub, demo::demo_options& demo) {
  sub.add_option_function<std::string>(
         "--records",
         [&demo](const std::string& v) {
           demo.records = static_cast<std::size_t>(*parse_unsigned(v));
         },
         "Records to produce (default 1000)")
      ->type_name("N")
      ->check(integer_check(1, std::numeric_limits<std::uint32_t>::max()));
  sub.add_option_function<std::string>(
         "--partitions",
         [&demo](const std::string& v) { demo.partitions = static_cast<int>(*parse_unsigned(v)); },
         "Partitions of the demo topic (default 4)")
      ->type_name("N")
      ->check(integer_check(1, 1024));
  sub.add_option_function<std::string>(
         "--fail-rate-503", [&demo](const std::string& v) { demo.fail_rate_503 = *parse_rate(v); },
         "Share of requests the mock webhook answers with 503 (0..1)")
      ->type_name("R")
      ->check(rate_check());
  sub.add_option_function<std::string>(
         "--fail-rate-timeout",
         [&demo](const std::string& v) { demo.fail_rate_timeout = *parse_rate(v); },
         "Share of requests the mock webhook never answers (0..1)")
      ->type_name("R")
      ->check(rate_check());
  sub.add_option_function<std::string>(
         "--fail-rate-400", [&demo](const std::string& v) { demo.fail_rate_400 = *parse_rate(v); },
         "Share of records the mock webhook always rejects with 400 (0..1)")
      ->type_name("R")
      ->check(rate_check());
  sub.add_option_function<std::string>(
         "--latency-ms",
         [&demo](const std::string& v) {
           demo.latency = std::chrono::milliseconds{
               static_cast<std::chrono::milliseconds::rep>(*parse_unsigned(v))};
         },
         "Added latency of every mock webhook response, in milliseconds")
      ->type_name("L")
      ->check(integer_check(0, 3'600'000));
  sub.add_option_function<std::string>(
         "--outage", [&demo](const std::string& v) { demo.outage = *parse_duration(v); },
         "The mock webhook answers 503 to everything for this long")
      ->type_name("DURATION")
      ->check(duration_check());
  sub.add_option_function<std::string>(
         "--seed", [&demo](const std::string& v) { demo.seed = *parse_unsigned(v); },
         "Seed of the mock webhook's chaos (default 42)")
      ->type_name("S")
      ->check(integer_check(0, std::numeric_limits<std::uint64_t>::max()));
  sub.add_flag_callback(
      "--no-progress", [&demo] { demo.progress = false; }, "Do not draw the progress bar");
}

void add_config_option(CLI::App& sub, std::filesystem::path& path) {
  sub.add_option("--config", path, "Config file (default topology/courier.json)")
      ->type_name("PATH");
}

// `courier audit` and its options.
CLI::App* add_audit_command(CLI::App& app, cli_command& cmd) {
  CLI::App* audit = app.add_subcommand(
      "audit",
      "Prove what happened to each record of a route's source: delivered (its receipt), waiting "
      "in a retry tier, in the DLQ, redriven, pending or unaccounted; exit 0 only when none is "
      "unaccounted, 1 when some are (listed by offset)");
  add_config_option(*audit, cmd.config_path);
  audit->add_option("--route", cmd.audit.route, "The route to audit (its receipts_topic is read)")
      ->type_name("NAME")
      ->required();
  audit
      ->add_option("--from", cmd.audit.from,
                   "Start of the range: a time (2026-12-01T00:00:00Z, or 2h ago as 2h), an "
                   "offset in every partition, or P:OFFSET,... (default: the log's start)")
      ->type_name("TIME|OFFSETS");
  audit
      ->add_option("--until", cmd.audit.until,
                   "End of the range, exclusive, in the same forms (default: the high watermark "
                   "when the audit starts)")
      ->type_name("TIME|OFFSETS");
  audit->add_flag("--json", cmd.audit.json, "Print one JSON object instead of lines");
  audit
      ->add_option_function<std::string>(
          "--timeout", [&cmd](const std::string& v) { cmd.audit.timeout = *parse_duration(v); },
          "How long any one wait for the broker may take (default 30s)")
      ->type_name("DURATION")
      ->check(duration_check());
  add_override_flags(*audit, cmd.flags);
  return audit;
}

// `courier replay` and its options.
CLI::App* add_replay_command(CLI::App& app, cli_command& cmd) {
  CLI::App* replay = app.add_subcommand(
      "replay",
      "Deliver a time range of a route's source again, to one endpoint or to the endpoints each "
      "record is for, through the running service (copies due at once in its first retry "
      "tier); never moves the route's committed offsets, and the same replay run twice writes "
      "nothing the second time");
  add_config_option(*replay, cmd.config_path);
  auto& o = cmd.replay;
  replay->add_option("--route", o.route, "The route whose source is replayed")
      ->type_name("NAME")
      ->required();
  replay->add_option("--endpoint", o.endpoint, "Only to this endpoint (of the records it is for)")
      ->type_name("NAME");
  replay
      ->add_option("--since", o.since,
                   "Records from this time on (2026-12-01T10:00:00Z, or 2h for two hours ago)")
      ->type_name("TIME")
      ->required();
  replay->add_option("--until", o.until, "Records before this time (default: up to now)")
      ->type_name("TIME");
  replay->add_flag("--dry-run", o.dry_run, "Print what it would write per partition and endpoint");
  replay->add_option("--rate", o.rate, "At most N copies a second (default: no bound)")
      ->type_name("N")
      ->check(CLI::Range(0.0, 100000.0));
  replay
      ->add_option_function<std::string>(
          "--timeout", [&o](const std::string& v) { o.timeout = *parse_duration(v); },
          "How long any one wait for the broker may take (default 30s)")
      ->type_name("DURATION")
      ->check(duration_check());
  add_override_flags(*replay, cmd.flags);
  return replay;
}

// A command line CLI11 refused: exit 2 and one line naming what is wrong.
cli_result usage_error(const CLI::App& app, const CLI::ParseError& e) {
  cli_result result;
  result.exit_code = usage_error_exit_code;
  result.message = std::string{"courier: "} + e.what();
  // CLI11 reports a mistyped subcommand as a missing one; name it instead.
  if (app.get_subcommands().empty()) {
    const auto extras = app.remaining();
    result.message = extras.empty() ? "courier: a command is required: run, demo, "
                                      "topics, config, audit, replay or version"
                                    : "courier: unknown command '" + extras.front() +
                                          "'; expected run, demo, topics, config, audit, replay or "
                                          "version";
  }
  return result;
}

courier_config demo_config() {
  route_config route;
  route.name = "shipments";
  route.topic = "brew.shipments.v1";
  route.url = std::string{demo_webhook_placeholder};
  route.hmac_secret = "demo-secret";
  // Both schemes, so the demo shows the Standard Webhooks headers too (and the in-process
  // receiver checks both); STANDARD_WEBHOOKS_SECRETS replaces this one as HMAC_SECRET does.
  route.signing.schemes = {signing_scheme::x_signature, signing_scheme::standard_webhooks};
  route.signing.secrets = {"whsec_Y291cmllci1kZW1vLXN0YW5kYXJkLXdlYmhvb2tzLWtleQ=="};
  // The demo's webhook runs in process, on loopback.
  route.allow_private_targets = true;
  // Short tiers, so a demo run shows records coming back from them within seconds.
  route.retry_tiers = {std::chrono::seconds{1}, std::chrono::seconds{5}, std::chrono::seconds{15}};
  courier_config cfg;
  cfg.routes.push_back(std::move(route));
  return cfg;
}

}  // namespace

cli_result parse_cli(int argc, const char* const* argv) {
  cli_command cmd;
  CLI::App app{"courier: delivers Kafka records to HTTP webhooks", "courier"};
  app.require_subcommand(1);
  // Lets --log-level and --log-format follow the subcommand too.
  app.fallthrough();
  app.add_option("--log-level", cmd.log_level, "Log level (default info)")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  app.add_option("--log-format", cmd.log_format,
                 "Log lines: human, json, or auto (default: human on a terminal, json otherwise)")
      ->type_name("auto|human|json")
      ->check(CLI::IsMember({"auto", "human", "json"}));

  CLI::App* run = app.add_subcommand("run", "Deliver records per the config");
  add_config_option(*run, cmd.config_path);
  add_override_flags(*run, cmd.flags);
  add_admin_flag(*run, cmd.flags);

  CLI::App* demo = app.add_subcommand("demo", "Run everything in one process on an embedded Kafka");
  add_override_flags(*demo, cmd.flags);
  add_admin_flag(*demo, cmd.flags);
  add_demo_flags(*demo, cmd.demo);

  CLI::App* topics = app.add_subcommand("topics", "Manage the topics the config needs");
  topics->require_subcommand(1);
  CLI::App* ensure = topics->add_subcommand(
      "ensure", "Create each route's retry-tier and DLQ topics (and a missing source topic)");
  add_config_option(*ensure, cmd.config_path);
  ensure
      ->add_option("--partitions", cmd.source_partitions,
                   "Partitions of a source topic that does not exist yet (default 1)")
      ->type_name("N")
      ->check(CLI::Range(1, 10000));
  add_override_flags(*ensure, cmd.flags);

  CLI::App* config = app.add_subcommand("config", "Inspect a config file");
  config->require_subcommand(1);
  CLI::App* check = config->add_subcommand(
      "check",
      "Validate a config as `run` would (environment and flags included), connecting to "
      "nothing: exit 0, or 2 naming the first key that cannot work");
  add_config_option(*check, cmd.config_path);
  add_override_flags(*check, cmd.flags);
  add_admin_flag(*check, cmd.flags);

  CLI::App* audit = add_audit_command(app, cmd);
  CLI::App* replay = add_replay_command(app, cmd);

  CLI::App* version = app.add_subcommand("version", "Print the version");

  cli_result result;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    result.message = app.help();
    return result;
  } catch (const CLI::CallForAllHelp&) {
    result.message = app.help("", CLI::AppFormatMode::All);
    return result;
  } catch (const CLI::ParseError& e) {
    return usage_error(app, e);
  }
  if (run->parsed()) {
    cmd.what = cli_command::kind::run;
  } else if (demo->parsed()) {
    cmd.what = cli_command::kind::demo;
  } else if (ensure->parsed()) {
    cmd.what = cli_command::kind::topics_ensure;
  } else if (check->parsed()) {
    cmd.what = cli_command::kind::config_check;
  } else if (audit->parsed()) {
    cmd.what = cli_command::kind::audit;
  } else if (replay->parsed()) {
    cmd.what = cli_command::kind::replay;
  } else if (version->parsed()) {
    cmd.what = cli_command::kind::version;
  }
  result.command = std::move(cmd);
  return result;
}

courier_config resolve_config(const cli_command& cmd, const getenv_function& getenv) {
  courier_config cfg;
  switch (cmd.what) {
    case cli_command::kind::run:
    case cli_command::kind::topics_ensure:
    case cli_command::kind::config_check:
    case cli_command::kind::audit:
    case cli_command::kind::replay:
      cfg = load_config_file(cmd.config_path);
      break;
    case cli_command::kind::demo:
      cfg = demo_config();
      break;
    case cli_command::kind::version:
      throw std::logic_error{"the version command has no configuration"};
  }
  apply_overrides(cfg, overrides_from_env(getenv));
  apply_overrides(cfg, cmd.flags);
  if (cmd.flags.admin_listen) {
    cfg.admin.listen = *cmd.flags.admin_listen;
  }
  // Creating topics, auditing and replaying (the service delivers the copies) send nothing to a
  // receiver: no secret is needed for them.
  const bool sends = cmd.what != cli_command::kind::topics_ensure &&
                     cmd.what != cli_command::kind::audit && cmd.what != cli_command::kind::replay;
  validate(cfg, sends ? secret_check::required : secret_check::optional);
  return cfg;
}

}  // namespace courier::app
