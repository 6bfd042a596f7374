#pragma once

// What a redrive run checks and loads before it reads the DLQ: the topics it names, the ledger.

#include "core/model/record.hpp"
#include "core/kafka/range_reader.hpp"
#include "core/redrive/ledger.hpp"
#include "core/redrive/plan.hpp"
#include "core/redrive/request.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace courier::redrive {

// The expected failure of a request that cannot start: a topic it names does not exist, Kafka
// cannot be reached within its timeout, the ledger cannot be created, a record asked for is not
// there. Nothing was published. (The redrive command exits 2 on it.)
class setup_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The wall clock in milliseconds since the epoch.
std::int64_t now_ms();

// The partitions of `topic`; throws setup_error naming the topic when it does not exist or
// Kafka cannot be reached within --timeout.
int checked_partition_count(kafka::range_reader& reader, const request& r,
                            const std::string& topic);

// The ledger's partitions, creating the ledger (compacted, one partition) when it does not
// exist yet; throws setup_error when it cannot.
int ensure_ledger(kafka::range_reader& reader, const request& r);

// Every ledger entry of `topic` (its `partitions` partitions), tombstones applied.
ledger load_ledger(kafka::range_reader& reader, const std::string& topic, int partitions);

// The ledger when it exists, else an empty one (--list, --stats, --dry-run create nothing).
ledger existing_ledger(kafka::range_reader& reader, const request& r);

// The plan's settings of a request.
plan_settings settings_of(const request& r);

}  // namespace courier::redrive
