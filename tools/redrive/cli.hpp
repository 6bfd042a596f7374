#pragma once

#include "tools/redrive/filter.hpp"
#include "tools/redrive/ledger.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "core/config/config.hpp"
#include "core/kafka/cluster.hpp"

namespace courier::redrive {

inline constexpr int exit_done = 0;
inline constexpr int exit_some_failed = 1;
inline constexpr int exit_usage = 2;

struct options {
  enum class mode { redrive, list, stats, show };
  mode what = mode::redrive;
  std::string from;
  std::optional<std::string> to;
  // The sources of the routes whose DLQ is `from` (--config, else $COURIER_CONFIG): without --to,
  // a record returns to its courier.origin.topic only if it is one of them.
  std::optional<std::set<std::string>> home_topics;
  std::string bootstrap;
  // -X KEY=VALUE: how to connect (security.protocol, sasl.*, ssl.*, ...), for every client.
  std::map<std::string, std::string> connection;
  std::string ledger_topic;  // --ledger; default <from>.redriven
  filter select;
  std::optional<std::size_t> limit;
  std::optional<double> rate;  // records per second
  bool dry_run = false;
  bool force = false;
  bool json = false;
  int max_redrives = 3;
  std::size_t batch = 100;  // records per transaction
  std::chrono::milliseconds timeout{10'000};
  std::optional<record_position> show;
  bool progress = false;  // set by main: stderr is a terminal
  // Set by main: true once the run should stop at the next batch boundary (SIGINT, SIGTERM).
  std::function<bool()> stop_requested;
};

// The cluster every client of a run connects to: --bootstrap with the -X properties.
kafka::cluster cluster_of(const options& o);

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
