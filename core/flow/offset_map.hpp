#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace courier {

// Offsets of one partition known to be done (delivered, dead-lettered or moved to a retry tier)
// above its commit point, as disjoint half-open runs [begin, end), adjacent runs merged.
class done_offsets {
 public:
  void add(std::int64_t begin, std::int64_t end);
  [[nodiscard]] bool contains(std::int64_t offset) const;
  // Forgets one offset (a run around it splits).
  void remove(std::int64_t offset);
  // Forgets every offset below `offset`.
  void erase_below(std::int64_t offset);
  [[nodiscard]] bool empty() const { return runs_.empty(); }
  [[nodiscard]] std::size_t run_count() const { return runs_.size(); }
  [[nodiscard]] std::uint64_t offset_count() const;
  // begin -> end, lowest first.
  [[nodiscard]] const std::map<std::int64_t, std::int64_t>& runs() const { return runs_; }

 private:
  std::map<std::int64_t, std::int64_t> runs_;
};

// The form a partition's done offsets take in an offset commit's metadata (the technique of
// Confluent's Parallel Consumer): "courier2:", the committed offset the map was written for in
// decimal, ':', and the base64 of unsigned LEB128 varints, two a run: its distance from the end
// of the previous run (from that offset for the first) and its length. A map is only ever read
// for the offset it was written for: committed with another offset (a reset that kept the
// metadata, another client committing with courier's metadata) it would name records never
// finished as done. The broker keeps at most offset.metadata.max.bytes (4,096 by default) a
// commit; what does not fit in `budget` characters is left out from the top, so the runs nearest
// the commit point (the ones its next owner meets first) are the ones kept.
inline constexpr std::string_view offset_map_prefix = "courier2:";
// The form before the base offset was written: it cannot be checked, so it is never read.
inline constexpr std::string_view unbound_offset_map_prefix = "courier1:";
inline constexpr std::size_t default_offset_map_budget = 4096;

// ordering "key" with on_dead_letter "park": the records above the commit point that go to the
// DLQ behind a dead-lettered record of their key, so that their next owner sends them there too
// (their key's park survives a restart or a rebalance). They follow the map after a '.', in the
// same form, and take the budget first: "courier2:<base>:<map>.<parked>" (the map may then be
// empty).
inline constexpr char parked_separator = '.';

// Runs at or below `committed` are left out (the commit point covers them). Empty when there is
// nothing above it, or when not even the prefix and one run fit.
std::string encode_offset_map(std::int64_t committed, const done_offsets& done, std::size_t budget,
                              const done_offsets& dead_parked = done_offsets{});

enum class offset_map_read : std::uint8_t {
  none,       // empty metadata: nothing known above the commit point
  read,       // a courier map
  foreign,    // metadata another client wrote (not courier's prefix): ignored
  malformed,  // courier's prefix, but not a map (bad base64, truncated varint, overflow): ignored
  // courier's map written for another committed offset than the one it was read with (a reset
  // that kept the metadata, another client's commit), or one of the old form with no base:
  // ignored, nothing above the commit point is taken as done.
  other_base,
};
std::string to_string(offset_map_read r);

// Reads `metadata` committed with `committed` into `out`, and its parked records into
// `dead_parked` when given (both left empty unless `read`, which needs the map's base to be
// `committed`).
offset_map_read decode_offset_map(std::string_view metadata, std::int64_t committed,
                                  done_offsets& out, done_offsets* dead_parked = nullptr);

}  // namespace courier
