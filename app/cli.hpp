#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "app/replay_command.hpp"
#include "core/config/config.hpp"
#include "demo/demo.hpp"

namespace courier::app {

// `courier audit`: which route, which part of its source, and how to print the result. --from
// and --until are kept as given; app/audit_bounds reads them (a time, or offsets).
struct audit_options {
  std::string route;
  std::optional<std::string> from;
  std::optional<std::string> until;
  bool json = false;
  std::chrono::milliseconds timeout{30'000};  // every wait for the broker
};

struct cli_command {
  enum class kind { run, demo, topics_ensure, config_check, audit, replay, version };
  kind what = kind::run;
  // run, topics ensure, config check: --config, relative to the working directory.
  std::filesystem::path config_path = "topology/courier.json";
  demo::demo_options demo;
  audit_options audit;
  replay_options replay;
  // topics ensure: partitions of a source topic that does not exist yet.
  int source_partitions = 1;
  // --brokers, --webhook-url, --cb-trip-after, --pause-after,
  // --cb-open-timeout (run and demo). Never a secret from argv, which is visible in ps:
  // admin_token is the content of --admin-token-file's file.
  config_overrides flags;
  std::string log_level = "info";
  // auto (human on a terminal, JSON otherwise), human or json.
  std::string log_format = "auto";
};

struct cli_result {
  std::optional<cli_command> command;
  // When command is empty, print message and exit with exit_code: 0 means
  // help text for stdout, 2 means a one-line error for stderr.
  int exit_code = 0;
  std::string message;
};

// The demo route's URL until the demo knows its in-process webhook's port.
inline constexpr std::string_view demo_webhook_placeholder = "http://127.0.0.1:0/deliver";

// Parses the `courier` command line: `run`, `demo`, `topics ensure`, `config check`, `audit`,
// `replay` or `version`, plus the
// global --log-level and --log-format. Never throws and never prints.
cli_result parse_cli(int argc, const char* const* argv);

// run, topics ensure, config check and audit: the --config file; demo: one built-in route
// "shipments" on brew.shipments.v1 with demo_webhook_placeholder as URL, signing with X-Signature
// ("demo-secret") and Standard Webhooks (a demo whsec_ secret). Then environment
// overrides, then flags (flags win), then validate(). Throws config_error.
courier_config resolve_config(const cli_command& cmd, const getenv_function& getenv);

}  // namespace courier::app
