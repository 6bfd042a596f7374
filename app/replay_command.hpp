#pragma once

// `courier replay`: a time range of a route's source delivered again, to one endpoint or to the
// endpoints each record is for, through the running service (core/replay/replay_copies.hpp).

#include <chrono>
#include <optional>
#include <ostream>
#include <string>

#include "core/config/config.hpp"

namespace courier::app {

struct replay_options {
  std::string route;
  std::optional<std::string> endpoint;
  std::string since;                 // a time as redrive reads one: ISO-8601 UTC, or "2h" ago
  std::optional<std::string> until;  // exclusive; none: the high watermark when the run starts
  bool dry_run = false;              // print what it would write, write nothing
  double rate = 0;                   // copies a second at most; 0: no bound
  std::chrono::milliseconds timeout{30'000};  // every wait for the broker
};

// Reads the source's records whose timestamps are in [since, until) on each partition (never
// committing: the route's group is not touched) and writes a copy of each for each endpoint it
// is for (narrowed to --endpoint) to the route's first retry tier, due at once, in transactions
// with its entry in the ledger "<source>.replayed"; a copy the ledger has is not written again.
// Prints the counts per partition and endpoint to `out`. 0: done; 1: a transaction failed
// (the copies of its batch were not written; run it again). Throws config_error for an unknown
// route or endpoint, a bad time, a route without retry tiers; kafka_error when the broker cannot
// be reached.
int run_replay(const courier_config& cfg, const replay_options& o, std::ostream& out);

}  // namespace courier::app
