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
  if (committed && last != last_committed_.end() && last->second == *committed &&
      former->second.commit_point) {
    seed.add(*committed, *former->second.commit_point);
    for (const auto& [begin, end] : former->second.done.runs()) {
      seed.add(begin, end);
    }
    seed.erase_below(*committed);
  }
  // The records still with the delivery pool are fetched again: their outcomes, when they
  // come, are the old copies'.
  for (const auto offset : former->second.handed_out) {
    orphans_[p].insert(offset);
  }
  former_.erase(former);
  if (committed) {
    last_committed_[p] = *committed;
  }
  return seed;
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
