#include <cstdio>
#include <iostream>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

#include <unistd.h>

#include "core/config/config.hpp"
#include "core/kafka/client_log.hpp"
#include "core/log/json_log.hpp"
#include "core/log/log_output.hpp"
#include "core/version.hpp"
#include "demo/demo.hpp"
#include "app/audit_command.hpp"
#include "app/cli.hpp"
#include "topology/kafka_log.hpp"
#include "topology/preflight.hpp"
#include "app/service.hpp"

namespace {

std::optional<std::string> read_env(const char* name) {
  if (const char* v = std::getenv(name)) {
    return std::string{v};
  }
  return std::nullopt;
}

// The configuration the command will run with, checked as far as it can be before start.
courier::courier_config checked_config(const courier::app::cli_command& cmd) {
  auto cfg = courier::app::resolve_config(cmd, read_env);
  courier::topology::check_before_start(cfg);
  return cfg;
}

}  // namespace

int main(int argc, char** argv) {
  using courier::app::cli_command;
  const auto parsed = courier::app::parse_cli(argc, argv);
  if (!parsed.command) {
    std::fprintf(parsed.exit_code == 0 ? stdout : stderr, "%s\n", parsed.message.c_str());
    return parsed.exit_code;
  }
  const auto& cmd = *parsed.command;
  if (!courier::log::set_level(cmd.log_level)) {
    std::fprintf(stderr, "courier: --log-level: unknown level '%s'\n", cmd.log_level.c_str());
    return 2;
  }
  const auto format = courier::log::parse_format_choice(cmd.log_format);
  if (!format) {
    std::fprintf(stderr,
                 "courier: --log-format: unknown format '%s'; expected auto, human or json\n",
                 cmd.log_format.c_str());
    return 2;
  }
  courier::log::set_format(courier::log::resolve_format(*format, isatty(STDERR_FILENO) != 0));
  courier::kafka::set_client_log_sink(&courier::topology::log_librdkafka);
  try {
    switch (cmd.what) {
      case cli_command::kind::version:
        std::printf("courier %s\n", courier::version);
        return 0;
      case cli_command::kind::run:
        return courier::app::run_service(checked_config(cmd));
      case cli_command::kind::config_check: {
        const auto cfg = checked_config(cmd);
        std::printf("courier: %s: valid (%zu route%s)\n", cmd.config_path.string().c_str(),
                    cfg.routes.size(), cfg.routes.size() == 1 ? "" : "s");
        for (const auto& route : cfg.routes) {
          std::printf("  route %s\n", route.name.c_str());
          if (route.endpoints.empty()) {
            for (const auto& line : courier::describe_partner_contract(route)) {
              std::printf("    %s\n", line.c_str());
            }
            continue;
          }
          for (const auto& line : courier::describe_endpoints(route)) {
            std::printf("    %s\n", line.c_str());
          }
        }
        if (cfg.admin.token.empty()) {
          std::printf("  admin: POST /routes/<name>/pause and /resume refused (no admin.token)\n");
        } else {
          std::printf("  admin: POST /routes/<name>/pause and /resume need the admin token\n");
        }
        return 0;
      }
      case cli_command::kind::topics_ensure:
        return courier::app::run_topics_ensure(checked_config(cmd), cmd.source_partitions);
      case cli_command::kind::audit:
        return courier::app::run_audit(courier::app::resolve_config(cmd, read_env), cmd.audit);
      case cli_command::kind::replay:
        return courier::app::run_replay(courier::app::resolve_config(cmd, read_env), cmd.replay,
                                        std::cout);
      case cli_command::kind::demo:
        return courier::demo::run_demo(cmd.demo, courier::app::resolve_config(cmd, read_env));
    }
  } catch (const courier::config_error& e) {
    std::fprintf(stderr, "courier: configuration error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "courier: %s\n", e.what());
    return 1;
  }
  return 1;
}
