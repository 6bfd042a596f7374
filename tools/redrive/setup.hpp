#pragma once

// What a redrive run checks and loads before it reads the DLQ: the topics it names, the ledger.

#include "core/model/record.hpp"
#include "tools/redrive/cli.hpp"
#include "core/kafka/range_reader.hpp"
#include "tools/redrive/ledger.hpp"
#include "tools/redrive/plan.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace courier::redrive {

// Ends the run with exit status 2 (exit_usage): nothing was published.
class setup_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The wall clock in milliseconds since the epoch.
std::int64_t now_ms();

// The partitions of `topic`; throws setup_error naming the topic when it does not exist or
// Kafka cannot be reached within --timeout.
int checked_partition_count(kafka::range_reader& reader, const options& o,
                            const std::string& topic);

// The ledger's partitions, creating the ledger (compacted, one partition) when it does not
// exist yet; throws setup_error when it cannot.
int ensure_ledger(kafka::range_reader& reader, const options& o);

// Every ledger entry of `topic` (its `partitions` partitions), tombstones applied.
ledger load_ledger(kafka::range_reader& reader, const std::string& topic, int partitions);

// The ledger when it exists, else an empty one (--list, --stats, --dry-run create nothing).
ledger existing_ledger(kafka::range_reader& reader, const options& o);

// The plan's settings from the command line.
plan_settings settings_of(const options& o);

}  // namespace courier::redrive
