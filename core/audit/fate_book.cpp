#include "core/audit/fate_book.hpp"

#include <algorithm>

namespace courier {

// [from, until), in that order as every range here.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
fate_book::fate_book(std::int64_t from, std::int64_t until, std::optional<std::int64_t> committed)
    : from_(from), until_(until), committed_(committed) {}

void fate_book::source_record(std::int64_t offset) {
  if (in_range(offset)) {
    records_.add(offset, offset + 1);
  }
}

void fate_book::receipt(std::int64_t origin) {
  if (in_range(origin)) {
    receipts_.add(origin, origin + 1);
  }
}

void fate_book::waiting_in_tier(std::int64_t origin) {
  if (in_range(origin)) {
    waiting_.add(origin, origin + 1);
  }
}

void fate_book::dead_lettered(std::int64_t origin, std::int64_t dlq_offset,
                              const std::string& error_class, bool redriven) {
  if (!in_range(origin)) {
    return;
  }
  const auto known = dead_.find(origin);
  if (known != dead_.end() && known->second.dlq_offset > dlq_offset) {
    return;  // an older DLQ record of it: the newest decides
  }
  auto klass = std::find(classes_.begin(), classes_.end(), error_class);
  if (klass == classes_.end()) {
    klass = classes_.insert(classes_.end(), error_class);
  }
  dead_[origin] =
      dlq_entry{dlq_offset, static_cast<std::size_t>(klass - classes_.begin()), redriven};
}

std::uint64_t fate_book::fates::dead_lettered_total() const {
  std::uint64_t n = 0;
  for (const auto& [klass, count] : dead_lettered) {
    n += count;
  }
  return n;
}

fate_book::fates fate_book::tally() const {
  fates out;
  for (const auto& [begin, end] : records_.runs()) {
    for (std::int64_t o = begin; o < end; ++o) {
      ++out.records;
      if (receipts_.contains(o)) {
        ++out.delivered;
        continue;
      }
      if (waiting_.contains(o)) {
        ++out.waiting;
        continue;
      }
      if (const auto dead = dead_.find(o); dead != dead_.end()) {
        if (dead->second.redriven) {
          ++out.redriven;
        } else {
          ++out.dead_lettered[classes_[dead->second.error_class]];
        }
        continue;
      }
      if (!committed_ || o >= *committed_) {
        ++out.pending;
        continue;
      }
      ++out.unaccounted;
      out.unaccounted_offsets.add(o, o + 1);
    }
  }
  for (const auto& [begin, end] : receipts_.runs()) {
    for (std::int64_t o = begin; o < end; ++o) {
      out.receipts_without_record += records_.contains(o) ? 0 : 1;
    }
  }
  return out;
}

}  // namespace courier
