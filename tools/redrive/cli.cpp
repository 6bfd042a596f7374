#include "tools/redrive/cli.hpp"

#include "core/config/cli_checks.hpp"
#include "core/config/config.hpp"
#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"
#include "core/time/duration.hpp"
#include "core/redrive/ledger.hpp"
#include "core/redrive/time_arg.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace courier::redrive {
namespace {

constexpr const char* default_bootstrap = "127.0.0.1:9092";

// redrive has always read at most 18 digits per integer argument.
constexpr std::size_t max_digits = 18;

// A --since/--until value; a bare number is told both forms it may have meant.
CLI::Validator time_check(std::int64_t now_ms) {
  return CLI::Validator{[now_ms](const std::string& text) {
                          if (parse_time_arg(text, now_ms)) {
                            return std::string{};
                          }
                          return time_arg_expected(text) + ", got '" + text + "'";
                        },
                        /*validator_desc=*/""};
}

// The options that narrow which DLQ records a run, --list or --stats takes.
constexpr std::array<const char*, 7> filter_options{
    "--error-class", "--origin-topic", "--origin-partition", "--since",
    "--until",       "--key",          "--endpoint"};

// The options with a default that an empty value must not silently stand for (`--to "$TOPIC"`
// with TOPIC unset): --to each record's origin topic, --ledger <from>.redriven, --bootstrap
// $KAFKA_BROKERS or 127.0.0.1:9092.
constexpr std::array<const char*, 3> defaulted_options{"--to", "--ledger", "--bootstrap"};

// The first of `options` given with an empty value. Left out, a filter selects every record;
// an empty value (`--key "$KEY"` with KEY unset) must not mean the same.
template <std::size_t N>
std::optional<std::string> given_empty(const CLI::App& app,
                                       const std::array<const char*, N>& options) {
  for (const char* name : options) {
    const auto& values = app.get_option(name)->results();
    if (std::any_of(values.begin(), values.end(), [](const std::string& v) { return v.empty(); })) {
      return std::string{name};
    }
  }
  return std::nullopt;
}

// A -X KEY=VALUE entry: an error naming what is wrong, or nothing. Only how to connect is taken
// (security.protocol, sasl.*, ssl.*, socket.*, client.id, ...): the reader, the producer and
// the ledger keep the settings their correctness depends on.
std::optional<std::string> kafka_property_error(const std::string& entry) {
  const auto eq = entry.find('=');
  if (eq == std::string::npos || eq == 0) {
    return "-X: expected KEY=VALUE, got '" + entry + "'";
  }
  const std::string name = entry.substr(0, eq);
  const std::string value = entry.substr(eq + 1);
  if (kafka::connection_properties({{name, value}}).empty()) {
    return "-X " + name +
           ": only connection properties are taken (security.protocol, sasl.*, ssl.*, "
           "socket.*, client.id, ...)";
  }
  try {
    (void)kafka::make_conf({{name, value}});
  } catch (const kafka::kafka_error& e) {
    return "-X " + name + ": " + e.what();
  }
  return std::nullopt;
}

}  // namespace

cli_result parse_cli(int argc, const char* const* argv, const getenv_function& getenv,
                     std::int64_t now_ms) {
  options o;
  CLI::App app{"redrive: returns DLQ records to their origin topic, once", "redrive"};
  std::string to;
  std::string bootstrap;
  std::string since;
  std::string until;
  std::string origin_topic;
  std::string origin_partition;
  std::string key;
  std::string endpoint;
  std::string limit;
  std::string rate;
  std::string batch;
  std::string max_redrives;
  std::string timeout;
  std::string show;
  bool list = false;
  bool stats = false;

  app.add_option("--from", o.run.from, "DLQ topic to read")->required()->type_name("TOPIC");
  app.add_option("--to", to, "Target topic (default: each record's courier.origin.topic)")
      ->type_name("TOPIC");
  std::string config_path;
  app.add_option("--config", config_path,
                 "courier's config: records return only to the sources of the routes whose DLQ "
                 "is --from (default $COURIER_CONFIG; a run without --to needs one)")
      ->type_name("FILE");
  app.add_option("--bootstrap", bootstrap,
                 "Kafka bootstrap servers (default $KAFKA_BROKERS, else 127.0.0.1:9092)")
      ->type_name("SERVERS");
  std::vector<std::string> kafka_properties;
  app.add_option("-X,--kafka-property", kafka_properties,
                 "A librdkafka connection property for every client, e.g. "
                 "-X security.protocol=SASL_SSL (repeatable; as courier's kafka.properties)")
      ->type_name("KEY=VALUE");
  app.add_option("--ledger", o.run.ledger_topic, "Ledger topic (default <from>.redriven)")
      ->type_name("TOPIC");
  app.add_option("--error-class", o.run.select.error_classes,
                 "Only records with this courier.error.class (repeatable)")
      ->type_name("C");
  app.add_option("--origin-topic", origin_topic, "Only records from this origin topic")
      ->type_name("T");
  app.add_option("--origin-partition", origin_partition, "Only records from this origin partition")
      ->type_name("P")
      ->check(integer_check(0, 1'000'000, max_digits));
  app.add_option("--since", since, "Only records that last failed at or after TIME")
      ->type_name("TIME")
      ->check(time_check(now_ms));
  app.add_option("--until", until, "Only records that last failed before TIME")
      ->type_name("TIME")
      ->check(time_check(now_ms));
  app.add_option("--key", key, "Only records with this Kafka key")->type_name("K");
  app.add_option("--endpoint", endpoint,
                 "Only records for this endpoint of a route with several (courier.endpoint); "
                 "they return to it alone")
      ->type_name("NAME");
  app.add_option("--limit", limit, "Move at most N records")
      ->type_name("N")
      ->check(integer_check(1, 1'000'000'000, max_digits));
  app.add_option("--rate", rate, "At most R records per second")
      ->type_name("R")
      ->check(integer_check(1, 1'000'000, max_digits));
  app.add_option("--batch", batch, "Records per transaction (default 100)")
      ->type_name("N")
      ->check(integer_check(1, 10'000, max_digits));
  app.add_option("--max-redrives", max_redrives,
                 "Loop guard: refuse records redriven this often (default 3)")
      ->type_name("N")
      ->check(integer_check(1, 1'000'000, max_digits));
  app.add_option("--timeout", timeout, "Bound on every Kafka wait (default 10s)")
      ->type_name("D")
      ->check(argument_check(
          [](const std::string& text) {
            const auto d = parse_duration(text);
            return d && d->count() > 0;
          },
          "expected a positive duration such as 500ms, 3s or 1m"));
  app.add_flag("--dry-run", o.run.dry_run, "Print what would move; publish nothing");
  app.add_flag("--force", o.run.force, "Redrive records the loop guard refuses");
  app.add_flag("--json", o.json, "JSON output for scripts");
  auto* list_flag = app.add_flag("--list", list, "List the DLQ records");
  auto* stats_flag = app.add_flag("--stats", stats, "Summarise the DLQ");
  auto* show_option =
      app.add_option("--show", show, "Print one record with all its headers")
          ->type_name("TOPIC:PARTITION:OFFSET")
          ->check(argument_check(
              [](const std::string& text) { return parse_coordinates(text).has_value(); },
              "expected TOPIC:PARTITION:OFFSET"));
  list_flag->excludes(stats_flag)->excludes(show_option);
  stats_flag->excludes(show_option);

  cli_result result;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    result.message = app.help();
    return result;
  } catch (const CLI::ParseError& e) {
    result.exit_code = exit_usage;
    result.message = std::string{"redrive: "} + e.what() + " (see redrive --help)";
    return result;
  }
  const auto fail = [&result](const std::string& message) {
    result.exit_code = exit_usage;
    result.message = "redrive: " + message;
    return result;
  };
  if (o.run.from.empty()) {
    return fail("--from: a DLQ topic is required");
  }
  if (const auto name = given_empty(app, filter_options)) {
    return fail(*name + ": empty value; it would select every record (give a value or leave " +
                *name + " out)");
  }
  if (const auto name = given_empty(app, defaulted_options)) {
    return fail(*name + ": empty value (give one, or leave " + *name + " out for its default)");
  }
  for (const auto& entry : kafka_properties) {
    if (const auto error = kafka_property_error(entry)) {
      return fail(*error);
    }
    const auto eq = entry.find('=');
    o.run.cluster.connection[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  if (!to.empty()) {
    o.run.to = to;
  }
  if (!bootstrap.empty()) {
    o.run.cluster.bootstrap = bootstrap;
  } else if (const char* env = getenv("KAFKA_BROKERS"); env != nullptr && *env != '\0') {
    o.run.cluster.bootstrap = env;
  } else {
    o.run.cluster.bootstrap = default_bootstrap;
  }
  if (o.run.ledger_topic.empty()) {
    o.run.ledger_topic = default_ledger_topic(o.run.from);
  }
  if (!origin_topic.empty()) {
    o.run.select.origin_topic = origin_topic;
  }
  if (!origin_partition.empty()) {
    o.run.select.origin_partition =
        static_cast<std::int32_t>(*parse_unsigned(origin_partition, max_digits));
  }
  if (!since.empty()) {
    o.run.select.since_ms = parse_time_arg(since, now_ms);
  }
  if (!until.empty()) {
    o.run.select.until_ms = parse_time_arg(until, now_ms);
  }
  if (o.run.select.since_ms && o.run.select.until_ms &&
      *o.run.select.since_ms >= *o.run.select.until_ms) {
    return fail("--since must be before --until");
  }
  if (!endpoint.empty()) {
    o.run.select.endpoint = endpoint;
  }
  if (!key.empty()) {
    o.run.select.key = key;
  }
  if (!limit.empty()) {
    o.run.limit = static_cast<std::size_t>(*parse_unsigned(limit, max_digits));
  }
  if (!rate.empty()) {
    o.run.rate = static_cast<double>(*parse_unsigned(rate, max_digits));
  }
  if (!batch.empty()) {
    o.run.batch = static_cast<std::size_t>(*parse_unsigned(batch, max_digits));
  }
  if (!max_redrives.empty()) {
    o.run.max_redrives = static_cast<int>(*parse_unsigned(max_redrives, max_digits));
  }
  if (!timeout.empty()) {
    o.run.timeout = *parse_duration(timeout);
  }
  if (list) {
    o.what = options::mode::list;
  } else if (stats) {
    o.what = options::mode::stats;
  } else if (!show.empty()) {
    o.what = options::mode::show;
    o.show = parse_coordinates(show);
  }
  if (config_path.empty()) {
    if (const char* env = getenv("COURIER_CONFIG"); env != nullptr && *env != '\0') {
      config_path = env;
    }
  }
  if (!config_path.empty() && o.what == options::mode::redrive) {
    try {
      o.run.home_topics = sources_of_dlq(load_config_file(config_path), o.run.from);
    } catch (const config_error& e) {
      return fail("--config " + config_path + ": " + e.what());
    }
    if (o.run.home_topics->empty()) {
      return fail("--config " + config_path + ": no route has " + o.run.from + " as its DLQ");
    }
  }
  if (o.what == options::mode::redrive && !o.run.to && !o.run.home_topics) {
    return fail(
        "a run returns each record to its courier.origin.topic only when that is a source of "
        "the DLQ's routes: give courier's config with --config FILE (or $COURIER_CONFIG), or a "
        "target with --to TOPIC");
  }
  result.opts = std::move(o);
  return result;
}

std::set<std::string> sources_of_dlq(const courier_config& cfg, const std::string& dlq) {
  std::set<std::string> out;
  for (const auto& r : cfg.routes) {
    if (topics_of(r).dlq == dlq) {
      out.insert(r.topic);
    }
  }
  return out;
}

}  // namespace courier::redrive
