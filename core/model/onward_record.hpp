#pragma once

#include <cstdint>
#include <string>

#include "core/model/record.hpp"
#include "core/model/record_position.hpp"

namespace courier {

// A record on its way to a retry tier or the DLQ (DESIGN.md section 5), from the delivery pool
// to the retry router: what to produce, where it was fetched from, and the requester's own
// name for it (both come back in an onward_blocked notice).
struct onward_record {
  record produce;  // topic = the tier or DLQ, the source's partition, key, value, headers
  record_position from;
  std::uint64_t tag = 0;
};

// From the retry router to the requester of an onward record, and on from the delivery pool
// to the record's consumer: producing the record fetched at `from` fails (`blocked`, with the
// broker's reason) or, after failing, has been acknowledged.
struct onward_blocked {
  record_position from;
  bool blocked = false;
  std::string destination;
  std::string reason;
  std::uint64_t tag = 0;  // the onward_record's
};

}  // namespace courier
