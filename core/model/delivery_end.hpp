#pragma once

#include <cstdint>
#include <string_view>

namespace courier {

// How a record's delivery ended: what the attempt policy decides, the delivery pool reports and
// the consumer's book counts. Every end lets the record's offset be committed.
enum class delivery_end : std::uint8_t {
  delivered,      // the receiver answered 2xx
  retried,        // the broker acknowledged it in the next retry tier
  dead_lettered,  // the broker acknowledged it in the DLQ
  filtered,       // it goes to none of its route's endpoints (filters, or a name skipped)
};

std::string_view to_string(delivery_end e);

}  // namespace courier
