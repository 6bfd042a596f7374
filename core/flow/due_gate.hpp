#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/partition_id.hpp"
#include "core/model/record.hpp"

namespace courier {

// How far a tier record's due time may lie beyond now plus the longest retry delay: clocks of
// courier instances set a little apart.
constexpr std::chrono::milliseconds due_skew_allowance{5 * 60 * 1000};

// A retry-tier record's due time as the gate waits for it (0: due now), and, when that is not
// what its courier.retry.due header says, why.
struct due_reading {
  std::int64_t due_ms = 0;
  std::optional<std::string> malformed;
};
// A header that does not parse, or a time further ahead than now, the longest retry delay and
// due_skew_allowance (written in other units, by a clock far off or by hand, up to INT64_MAX:
// held, it would stop its partition for as long, and its wake-up time would overflow), is due
// now.
due_reading read_due(const record& r, std::int64_t now_ms,
                     std::chrono::milliseconds longest_retry_delay);

// Holds retry-tier records until their due time (DESIGN.md section 5). Per partition, records
// leave in offset order: once a partition holds a record that is not yet due, every later
// record of that partition waits behind it. The caller pauses a partition while it holds
// records and resumes it when it holds none.
class due_gate {
 public:
  // Returns the record if it may be delivered now; otherwise keeps it and returns nothing.
  std::optional<record> admit(record r, std::int64_t due_ms, std::int64_t now_ms);

  // The partition's held records that are due at `now_ms`, in order, up to the first that
  // is not.
  std::vector<record> release(const partition_id& p, std::int64_t now_ms);

  // When the partition's first held record is due.
  std::optional<std::int64_t> next_due(const partition_id& p) const;

  bool holds(const partition_id& p) const;
  // The offset of the partition's first held record.
  std::optional<std::int64_t> first_held_offset(const partition_id& p) const;
  std::size_t size() const;
  std::size_t held_count(const partition_id& p) const;  // the partition's records held now

  // Forgets a partition's records (revoked: its next owner fetches them again); returns their
  // offsets.
  std::vector<std::int64_t> drop(const partition_id& p);

 private:
  struct held {
    record rec;
    std::int64_t due_ms;
  };
  std::map<partition_id, std::deque<held>> held_;
  std::size_t size_ = 0;
};

}  // namespace courier
