#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>

#include "core/flow/offset_map.hpp"

namespace courier {

// Which offset of one partition may be committed while records complete out of order
// (DESIGN.md section 4): never past a record that is not done. And which offsets above it are
// done already, for the commit's metadata (core/flow/offset_map.hpp): every offset up to the
// last one tracked that is not in flight (completed, or never a record: compaction and
// transaction markers leave gaps), and those the partition's previous owner said were done.
class offset_tracker {
 public:
  enum class track_result : std::uint8_t {
    tracked,       // in flight now
    already_done,  // the previous owner's map says it is done: not in flight, not delivered
    duplicate,     // at or below the last tracked offset (a rewind): ignored
  };
  // A record fetched. Offsets arrive increasing, possibly with gaps. One at or below the last
  // tracked offset was seen before (librdkafka re-delivers after a rewind): ignored, so
  // committable() never moves backwards and the caller drops that second copy.
  [[nodiscard]] track_result track(std::int64_t offset);

  // Offsets a previous owner (or this consumer before it lost the partition) finished above
  // the commit point it fetches from. Those not yet tracked are skipped when they come.
  void seed(const done_offsets& done);

  // The record at `offset` is done (delivered, or acked in a retry or DLQ topic); any order.
  // Returns false, changing nothing, for an offset that is not in flight.
  bool complete(std::int64_t offset);

  // The offset to commit, in Kafka's sense (the next one to read): the lowest offset still
  // in flight, or the last tracked + 1 when nothing is. nullopt before the first track().
  [[nodiscard]] std::optional<std::int64_t> committable() const;

  // Every offset known done above committable(), for the commit's metadata. O(in flight).
  [[nodiscard]] done_offsets done_above_commit() const;

  // Whether the offset is done as far as this tracker knows: tracked and no longer in flight,
  // or seeded done. O(log n).
  [[nodiscard]] bool known_done(std::int64_t offset) const;

  [[nodiscard]] std::size_t in_flight() const;

  // The lowest offset still in flight, if any: the record that holds the commit point.
  [[nodiscard]] std::optional<std::int64_t> head() const;

  // The highest offset tracked so far, if any.
  [[nodiscard]] std::optional<std::int64_t> last_tracked() const;
  // The first offset it was given (tracked, or done by its seed): where its fetch began.
  [[nodiscard]] std::optional<std::int64_t> first_tracked() const { return first_tracked_; }

  // Every offset in flight, lowest first.
  [[nodiscard]] const std::set<std::int64_t>& in_flight_offsets() const { return in_flight_; }

 private:
  std::set<std::int64_t> in_flight_;
  std::optional<std::int64_t> last_tracked_;
  std::optional<std::int64_t> first_tracked_;
  done_offsets seeded_;  // above last_tracked_ only
};

}  // namespace courier
