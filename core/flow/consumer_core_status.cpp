#include "core/flow/consumer_core.hpp"

#include <string>
#include <utility>

// The consumer core as /state, /metrics and tests read it.

namespace courier {

std::string to_string(consumer_core::intake i) {
  switch (i) {
    case consumer_core::intake::dispatched:
      return "dispatched";
    case consumer_core::intake::overflowed:
      return "overflowed";
    case consumer_core::intake::gated:
      return "gated";
    case consumer_core::intake::duplicate:
      return "duplicate";
    case consumer_core::intake::not_assigned:
      return "not_assigned";
    case consumer_core::intake::already_done:
      return "already_done";
    case consumer_core::intake::followed:
      return "followed";
  }
  return "unknown";
}

std::optional<consumer_core::partition_view> consumer_core::view(const partition_id& p) const {
  auto it = book_.find(p);
  if (it == book_.end()) {
    return std::nullopt;
  }
  const auto& t = it->second.tracker();
  return partition_view{t.committable(), t.in_flight(), pauses_.is_paused(p)};
}

std::vector<consumer_core::partition_status> consumer_core::statuses(std::int64_t now_ms) {
  std::vector<partition_status> out;
  out.reserve(accounts_.size());
  for (auto& [p, e] : book_) {
    partition_status s;
    s.id = p;
    s.assigned = true;
    s.reasons = pauses_.reasons(p);
    s.paused_since_ms = e.paused_since(!s.reasons.empty(), now_ms);
    s.committable = e.tracker().committable();
    s.in_flight = e.tracker().in_flight();
    s.held_until_due = gate_.held_count(p);
    s.oldest_undelivered_ms = e.oldest_undelivered_timestamp_ms();
    s.accounting = accounts_[p];
    if (const auto book = ordered_.status(p)) {
      s.ordered = true;
      s.parked_keys = book->parked_keys;
      s.followers = book->followers;
      s.oldest_parked_since_ms = book->oldest_parked_since_ms;
    }
    out.push_back(std::move(s));
  }
  for (const auto& [p, a] : accounts_) {
    if (book_.count(p) == 0) {
      partition_status s;
      s.id = p;
      s.accounting = a;
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace courier
