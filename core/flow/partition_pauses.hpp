#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/model/partition_id.hpp"

namespace courier {

// Why a partition's fetching is paused (DESIGN.md section 4).
enum class pause_reason : std::uint8_t {
  breaker,
  backpressure,
  retry_due,
  shutdown,
  produce_blocked,   // a record of it cannot be written to its retry tier or the DLQ
  operator_request,  // POST /routes/<name>/pause on the admin listener ("operator")
  // routes[].ordering "key": too many keys parked or records held behind one key
  // (ordering.max_parked_keys, ordering.max_followers)
  ordering,
};

std::string to_string(pause_reason r);

// The pause state of a consumer's partitions, which is ours and not librdkafka's: each assigned
// partition has a set of reasons and is paused while the set is non-empty. Every change
// returns the partitions whose librdkafka pause flag must flip; a partition is never resumed
// unless it was paused (librdkafka 2.0.2 can rewind one that is resumed without a pause).
class partition_pauses {
 public:
  struct change {
    std::vector<partition_id> pause;    // call pause() on these
    std::vector<partition_id> resume;   // call resume() on these
    std::vector<partition_id> touched;  // whose reasons changed
  };

  // A newly assigned partition takes every route-wide reason at once.
  change assign(const partition_id& p);

  // Forgets a revoked partition (the consumer wrapper resumes it before giving it up).
  void revoke(const partition_id& p);

  // Sets or clears a reason on one assigned partition; nothing for an unassigned one.
  change set(const partition_id& p, pause_reason r, bool on);

  // Sets or clears a route-wide reason: on every assigned partition and on later assignments.
  change set_everywhere(pause_reason r, bool on);

  bool is_paused(const partition_id& p) const;
  // The partition's reasons, in enum order; empty when it fetches or is not assigned.
  std::vector<pause_reason> reasons(const partition_id& p) const;
  std::size_t paused_count() const;

 private:
  void flip_if_needed(const partition_id& p, change& c);

  std::map<partition_id, std::set<pause_reason>> reasons_;
  std::set<partition_id> paused_;
  std::set<pause_reason> route_wide_;
};

}  // namespace courier
