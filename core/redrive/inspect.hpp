#pragma once

// What a DLQ holds, read only (redrive's --list, --stats, --show): these publish nothing and
// create nothing (not even the ledger). Each throws setup_error when a topic it names does not
// exist or Kafka cannot be reached, kafka::kafka_error when Kafka fails while it reads.

#include "core/model/record.hpp"
#include "core/model/record_position.hpp"
#include "core/redrive/request.hpp"
#include "core/redrive/stats.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace courier::redrive {

// What a run would find a DLQ record to be.
enum class record_status : std::uint8_t { parked, redriven, refused, malformed };

std::string_view to_string(record_status s);

// One DLQ record the filter selects.
struct list_row {
  std::string coordinates;
  std::optional<std::string> key;
  std::string error_class;
  record_status status = record_status::parked;
  std::string origin;  // "topic:partition" or "(none)"
  std::int64_t failed_at_ms = 0;
  int redrive_count = 0;
};

// The DLQ records `r` selects, in the order they were read, with what a run (never forced)
// would make of each.
std::vector<list_row> list_records(const request& r);

// The DLQ records `r.select` selects summarised (by error class, origin, age at `now_ms`).
dlq_stats dlq_statistics(const request& r, std::int64_t now_ms);

// The record at `at`, with all its headers; nothing when there is none at that offset. Throws
// setup_error when the topic or the partition does not exist.
std::optional<record> find_record(const request& r, const record_position& at);

}  // namespace courier::redrive
