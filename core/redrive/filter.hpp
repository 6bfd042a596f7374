#pragma once

#include "core/redrive/parked_record.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace courier::redrive {

// Which DLQ records a run, --list or --stats looks at. Every set criterion must hold; an unset
// one holds for every record.
struct filter {
  std::vector<std::string> error_classes;  // any of them (courier.error.class)
  std::optional<std::string> origin_topic;
  std::optional<std::int32_t> origin_partition;
  std::optional<std::int64_t> since_ms;  // failed_at_ms >= since
  std::optional<std::int64_t> until_ms;  // failed_at_ms < until
  std::optional<std::string> key;        // the Kafka key, exactly
  std::optional<std::string> endpoint;   // courier.endpoint, exactly (routes[].endpoints)
};

// A criterion on a header that is malformed or absent holds only when it is unset: a record
// without an origin partition is not "from partition 3".
bool matches(const filter& f, const parked_record& r);

}  // namespace courier::redrive
