#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/audit/fate_book.hpp"
#include "core/model/record.hpp"

namespace courier {

// One partition of the source range `courier audit` looks at: [from, until), and the route's
// committed offset there (none: nothing committed yet).
struct audited_partition {
  std::int64_t from = 0;
  std::int64_t until = 0;
  std::optional<std::int64_t> committed;
};

// What `courier audit` learns of one route's source range, record by record, from the places a
// record can end up (the reading itself is app/audit_command's): it keeps one fate_book per
// source partition and tells each what the records it is shown say.
//
// The records are taken as courier writes them: a receipt's value names its origin (a tier
// copy's source record); a tier or DLQ record carries courier.origin.* and courier.route, a DLQ
// record courier.error.class. Every source record is a record of the range with a fate of its
// own, a redriven one too (its DLQ original's fate is "redriven"): courier never trusts
// courier.origin.* on a source topic (core/retry/provenance.hpp), so no source record can stand
// for another.
class route_audit {
 public:
  route_audit(std::string route, std::string source_topic,
              std::map<std::int32_t, audited_partition> partitions);

  void source_record(const record& r);
  // A record of the receipts topic (receipts of other routes and sources are passed over).
  void receipt_record(const record& r);
  // A tier record the route has not finished with (past the tier's commit point and not in its
  // offset map): its origin is waiting in that tier.
  void tier_record(const record& r);
  // A DLQ record; `redriven`: redrive's ledger holds it.
  void dlq_record(const record& r, bool redriven);

  struct partition_fates {
    std::int32_t partition = 0;
    audited_partition range;
    fate_book::fates fates;
  };
  [[nodiscard]] std::vector<partition_fates> tally() const;

  // What was read but is not the fate of a record of the range.
  struct passed_over {
    std::uint64_t unreadable = 0;    // a receipt or courier.* header that does not parse
    std::uint64_t other_routes = 0;  // receipts, tier or DLQ records of another route
  };
  [[nodiscard]] const passed_over& passed() const { return passed_; }

  [[nodiscard]] const std::map<std::int32_t, audited_partition>& ranges() const { return ranges_; }
  [[nodiscard]] const std::string& route() const { return route_; }
  [[nodiscard]] const std::string& source_topic() const { return source_; }

 private:
  // The book of origin (topic, partition), if it is one of the range's partitions.
  fate_book* book_of(const std::string& topic, std::int32_t partition);
  // Whether a tier or DLQ record belongs to this route (no courier.route header: it does).
  bool of_this_route(const record& r);
  // A tier or DLQ record's origin: its book (null when it is another route's, unreadable, or of
  // no partition of the range) and its offset; counts what it passes over.
  struct origin_entry {
    fate_book* book = nullptr;
    std::int64_t offset = 0;
  };
  origin_entry origin_in_range(const record& r);

  std::string route_;
  std::string source_;
  std::map<std::int32_t, audited_partition> ranges_;
  std::map<std::int32_t, fate_book> books_;
  passed_over passed_;
};

}  // namespace courier
