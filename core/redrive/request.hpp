#pragma once

#include "core/kafka/cluster.hpp"
#include "core/redrive/filter.hpp"
#include "core/redrive/redrive_headers.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>

namespace courier::redrive {

// What a redrive run (or --list, --stats) reads and where the records it moves go. The
// command line and auto-redrive both fill one (DESIGN.md section 6).
struct request {
  std::string from;  // the DLQ topic
  // The target topic for every record; nothing: each record's courier.origin.topic.
  std::optional<std::string> to;
  // The sources of the routes whose DLQ is `from`: without `to`, a record returns to its
  // courier.origin.topic only if it is one of them.
  std::optional<std::set<std::string>> home_topics;
  std::string ledger_topic;  // default_ledger_topic(from) unless an operator named another
  // The bootstrap servers and how to connect (security.protocol, sasl.*, ssl.*, ...), for every
  // client of the run.
  kafka::cluster cluster{std::string{}};
  filter select;
  std::optional<std::size_t> limit;  // records moved at most
  std::optional<double> rate;        // records per second
  bool dry_run = false;              // count what would move; publish nothing
  bool force = false;                // redrive records the loop guard refuses
  int max_redrives = default_max_redrives;
  std::size_t batch = 100;                    // records per transaction
  std::chrono::milliseconds timeout{10'000};  // bounds every Kafka wait
  // Polled between transactions: true ends the run at the next batch boundary.
  std::function<bool()> stop_requested;
};

}  // namespace courier::redrive
