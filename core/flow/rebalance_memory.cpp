#include "core/flow/rebalance_memory.hpp"

#include <utility>

namespace courier {

void rebalance_memory::revoked(const partition_id& p, former_partition former) {
  former_[p] = std::move(former);
}

done_offsets rebalance_memory::assigned(const partition_id& p,
                                        std::optional<std::int64_t> committed, done_offsets seed) {
  auto former = former_.find(p);
  if (former == former_.end()) {
    if (committed) {
      last_committed_[p] = *committed;
    }
    return seed;
  }
  // Nobody committed since this consumer last did (or last found committed): what it finished
  // meanwhile is still ahead of the commit point, and done.
  const auto last = last_committed_.find(p);
  const auto unanswered = unanswered_.find(p);
  const bool own =
      committed ? (last != last_committed_.end() && last->second == *committed) ||
                      (unanswered != unanswered_.end() && unanswered->second.count(*committed) != 0)
                : last == last_committed_.end();
  const auto base = committed ? committed : former->second.fetched_from;
  if (own && base && former->second.commit_point) {
    seed.add(*base, *former->second.commit_point);
    for (const auto& [begin, end] : former->second.done.runs()) {
      seed.add(begin, end);
    }
    seed.erase_below(*base);
  }
  // The records still with the delivery pool are fetched again: their outcomes, when they
  // come, are the old copies'.
  for (const auto offset : former->second.handed_out) {
    orphans_[p].insert(offset);
  }
  former_.erase(former);
  // What the broker has now is known: a commit sent before is taken or never will be.
  unanswered_.erase(p);
  if (committed) {
    last_committed_[p] = *committed;
  }
  return seed;
}

void rebalance_memory::sent(const partition_id& p, std::int64_t offset) {
  auto& offsets = unanswered_[p];
  offsets.insert(offset);
  if (offsets.size() > max_unanswered) {
    offsets.erase(offsets.begin());
  }
}

void rebalance_memory::committed(const partition_id& p, std::int64_t offset) {
  last_committed_[p] = offset;
  if (const auto u = unanswered_.find(p); u != unanswered_.end()) {
    u->second.erase(u->second.begin(), u->second.upper_bound(offset));
    if (u->second.empty()) {
      unanswered_.erase(u);
    }
  }
}

bool rebalance_memory::handed_out_before_revoke(const partition_id& p, std::int64_t offset) const {
  const auto f = former_.find(p);
  if (f != former_.end() && f->second.handed_out.count(offset) != 0) {
    return true;
  }
  const auto o = orphans_.find(p);
  return o != orphans_.end() && o->second.count(offset) != 0;
}

bool rebalance_memory::finished_before_revoke(const partition_id& p, std::int64_t offset) {
  if (auto f = former_.find(p); f != former_.end()) {
    // Handed out before a revoke, and the partition not assigned here since: finished, which
    // a later assignment may use, but it counts for nothing else.
    if (f->second.handed_out.erase(offset) != 0) {
      f->second.done.add(offset, offset + 1);
      return true;
    }
  }
  if (auto o = orphans_.find(p); o != orphans_.end()) {
    if (auto copy = o->second.find(offset); copy != o->second.end()) {
      // Handed out before a revoke. Should the partition be assigned again with that record
      // in flight anew, the two copies' outcomes look alike: the first one to come is taken
      // for the old copy's, so the offset completes when both are in, never before its copy.
      o->second.erase(copy);
      if (o->second.empty()) {
        orphans_.erase(o);
      }
      return true;
    }
  }
  return false;
}

}  // namespace courier
