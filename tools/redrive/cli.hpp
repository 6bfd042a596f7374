#pragma once

#include "core/redrive/request.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "core/config/config.hpp"
#include "core/model/record_position.hpp"

namespace courier::redrive {

inline constexpr int exit_done = 0;
inline constexpr int exit_some_failed = 1;
inline constexpr int exit_usage = 2;

// The command line: what to do and how to print it, around the library's request.
struct options {
  enum class mode { redrive, list, stats, show };
  mode what = mode::redrive;
  request run;  // --from, --to, --config's home topics, --ledger, the cluster, the filters, ...
  bool json = false;
  std::optional<record_position> show;
  bool progress = false;  // set by main: stderr is a terminal
};

struct cli_result {
  std::optional<options> opts;  // empty: print `message`, exit with `exit_code`
  int exit_code = exit_done;
  std::string message;
};

using getenv_function = std::function<const char*(const char*)>;

// The source topics of the routes of `cfg` whose DLQ is `dlq`.
std::set<std::string> sources_of_dlq(const courier_config& cfg, const std::string& dlq);

// Parses argv; --since/--until durations count back from `now_ms`.
cli_result parse_cli(int argc, const char* const* argv, const getenv_function& getenv,
                     std::int64_t now_ms);

}  // namespace courier::redrive
