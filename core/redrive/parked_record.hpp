#pragma once

#include "core/model/record.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace courier::redrive {

// What a DLQ record says about itself, read from its courier.* headers.
struct parked_record {
  record raw;               // the DLQ record as read
  std::string coordinates;  // "<dlq-topic>:<partition>:<offset>", the ledger key
  std::string error_class;  // courier.error.class; "" when absent
  std::optional<std::string> origin_topic;
  std::optional<std::int32_t> origin_partition;
  std::int64_t failed_at_ms = 0;  // courier.last.failure, else the record's Kafka timestamp
  int redrive_count = 0;          // courier.redrive.count; 0 when absent
  // Set when a courier.* header is malformed: names the coordinates, the header and the value.
  std::optional<std::string> problem;
};

// Never throws: a malformed header becomes `problem`, and the fields it would have set keep
// their defaults.
parked_record read_parked_record(record r);

// "topic:partition" of its origin ("topic:?" without a partition), or "(none)".
std::string origin_of(const parked_record& r);

}  // namespace courier::redrive
