#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>

namespace courier {

// Which offset of one partition may be committed while records complete out of order
// (DESIGN.md section 4): never past a record that is not done.
class offset_tracker {
 public:
  // A record handed out for delivery. Offsets arrive increasing, possibly with gaps
  // (compaction, transaction markers). One at or below the last tracked offset was handed out
  // before (librdkafka re-delivers after a rewind): it is ignored, so committable() never moves
  // backwards, and track() returns false so the caller drops that second copy instead of
  // handing out a record it no longer counts.
  [[nodiscard]] bool track(std::int64_t offset);

  // The record at `offset` is done (delivered, or acked in a retry or DLQ topic); any order.
  // Returns false, changing nothing, for an offset that is not in flight.
  bool complete(std::int64_t offset);

  // The offset to commit, in Kafka's sense (the next one to read): the lowest offset still
  // in flight, or the last tracked + 1 when nothing is. nullopt before the first track().
  [[nodiscard]] std::optional<std::int64_t> committable() const;

  [[nodiscard]] std::size_t in_flight() const;

  // The lowest offset still in flight, if any: the record that holds the commit point.
  [[nodiscard]] std::optional<std::int64_t> head() const;

  // The highest offset tracked so far, if any.
  [[nodiscard]] std::optional<std::int64_t> last_tracked() const;

  // Every offset in flight, lowest first.
  [[nodiscard]] const std::set<std::int64_t>& in_flight_offsets() const { return in_flight_; }

 private:
  std::set<std::int64_t> in_flight_;
  std::optional<std::int64_t> last_tracked_;
};

}  // namespace courier
