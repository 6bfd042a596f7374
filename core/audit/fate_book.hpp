#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/flow/offset_map.hpp"

namespace courier {

// What happened to each record of one source partition's range, for `courier audit`
// (route_audit feeds it; app/audit_command reads the topics):
// the records the source holds there, and what the other places say of them by origin offset:
// a receipt (delivered), a copy in a retry tier past that tier's committed offset (waiting), a
// DLQ record (dead-lettered, with its class; redriven when the redrive ledger moved it). A record
// at or past the route's committed offset that nothing names is not processed yet; one below it
// that nothing names is unaccounted.
//
// Each record has one fate, the first of: delivered, waiting, its newest DLQ record redriven
// (on its way back), dead-lettered, pending, unaccounted; so the fates add up to the records.
//
// Pure, and bounded where the range is large: the source's records, the receipts and the tier
// copies are runs of offsets (done_offsets), so millions of consecutive records are a few runs;
// only the DLQ records (what went wrong) are kept one by one.
class fate_book {
 public:
  // The range audited: [from, until). `committed`: the route's committed offset of the source
  // partition (none: nothing committed, so nothing in the range is processed for sure).
  fate_book(std::int64_t from, std::int64_t until, std::optional<std::int64_t> committed);

  // The source holds a record at `offset` (compaction and transactions leave gaps).
  void source_record(std::int64_t offset);
  // What the other places say, by origin offset (out of the range: ignored).
  void receipt(std::int64_t origin);
  void waiting_in_tier(std::int64_t origin);
  // A DLQ record of `origin`, at `dlq_offset` in its DLQ partition; `redriven`: the redrive
  // ledger moved it. The newest DLQ record of an origin decides (a record redriven and
  // dead-lettered again is in the DLQ).
  void dead_lettered(std::int64_t origin, std::int64_t dlq_offset, const std::string& error_class,
                     bool redriven);

  struct fates {
    std::uint64_t records = 0;
    std::uint64_t delivered = 0;
    std::uint64_t waiting = 0;
    std::uint64_t redriven = 0;
    std::map<std::string, std::uint64_t> dead_lettered;  // by error class
    std::uint64_t pending = 0;
    std::uint64_t unaccounted = 0;
    done_offsets unaccounted_offsets;  // as runs
    // Receipts that name an offset the source does not hold in the range (a receipt of another
    // range is left out before it gets here): a sign the receipts and the source disagree.
    std::uint64_t receipts_without_record = 0;

    [[nodiscard]] std::uint64_t dead_lettered_total() const;
  };
  // The fates of the range's records, by walking them once.
  [[nodiscard]] fates tally() const;

 private:
  struct dlq_entry {
    std::int64_t dlq_offset = 0;
    std::size_t error_class = 0;  // into classes_
    bool redriven = false;
  };

  [[nodiscard]] bool in_range(std::int64_t offset) const {
    return offset >= from_ && offset < until_;
  }

  std::int64_t from_;
  std::int64_t until_;
  std::optional<std::int64_t> committed_;
  done_offsets records_;
  done_offsets receipts_;
  done_offsets waiting_;
  std::map<std::int64_t, dlq_entry> dead_;  // by origin: its newest DLQ record
  std::vector<std::string> classes_;
};

}  // namespace courier
