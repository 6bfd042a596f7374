#include "core/audit/route_audit.hpp"

#include <utility>

#include "core/retry/receipt.hpp"
#include "core/retry/retry_headers.hpp"

namespace courier {

route_audit::route_audit(std::string route, std::string source_topic,
                         std::map<std::int32_t, audited_partition> partitions)
    : route_(std::move(route)), source_(std::move(source_topic)), ranges_(std::move(partitions)) {
  for (const auto& [p, range] : ranges_) {
    books_.emplace(p, fate_book{range.from, range.until, range.committed});
  }
}

fate_book* route_audit::book_of(const std::string& topic, std::int32_t partition) {
  if (topic != source_) {
    return nullptr;
  }
  const auto it = books_.find(partition);
  return it == books_.end() ? nullptr : &it->second;
}

bool route_audit::of_this_route(const record& r) {
  const auto route = find_header(r.headers, route_header);
  if (route && *route != route_) {
    ++passed_.other_routes;
    return false;
  }
  return true;
}

// Every source record is a fate of its own, whatever courier.* headers its producer wrote:
// courier takes provenance off a source record (core/retry/provenance.hpp), so its receipt, tier
// and DLQ records name this offset, and a record that claims another's offset hides nothing.
void route_audit::source_record(const record& r) {
  if (auto* book = book_of(r.topic, r.partition)) {
    book->source_record(r.offset);
  }
}

void route_audit::receipt_record(const record& r) {
  receipt rc;
  try {
    rc = decode_receipt(r.value.view());
  } catch (const receipt_error&) {
    ++passed_.unreadable;
    return;
  }
  if (rc.route != route_) {
    ++passed_.other_routes;
    return;
  }
  if (auto* book = book_of(rc.origin.topic, rc.origin.partition)) {
    book->receipt(rc.origin.offset);
  }
}

namespace {

// The origin a tier or DLQ record names, if its courier.* headers can be read.
std::optional<origin> origin_of(const record& r) {
  try {
    return read_retry_state(r.headers).from;
  } catch (const header_error&) {
    return std::nullopt;
  }
}

}  // namespace

route_audit::origin_entry route_audit::origin_in_range(const record& r) {
  if (!of_this_route(r)) {
    return {};
  }
  const auto from = origin_of(r);
  if (!from) {
    ++passed_.unreadable;
    return {};
  }
  return {book_of(from->topic, from->partition), from->offset};
}

void route_audit::tier_record(const record& r) {
  if (const auto o = origin_in_range(r); o.book != nullptr) {
    o.book->waiting_in_tier(o.offset);
  }
}

void route_audit::dlq_record(const record& r, bool redriven) {
  if (const auto o = origin_in_range(r); o.book != nullptr) {
    const auto klass = find_header(r.headers, error_class_header);
    o.book->dead_lettered(o.offset, r.offset, klass ? std::string{*klass} : "unknown", redriven);
  }
}

std::vector<route_audit::partition_fates> route_audit::tally() const {
  std::vector<partition_fates> out;
  out.reserve(books_.size());
  for (const auto& [p, book] : books_) {
    out.push_back(partition_fates{p, ranges_.at(p), book.tally()});
  }
  return out;
}

}  // namespace courier
