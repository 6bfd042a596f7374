#include "core/flow/revoke_drain.hpp"

#include <algorithm>
#include <utility>

namespace courier {

revoke_drain::revoke_drain(consumer_core& core, revoke_backend& io,
                           std::chrono::milliseconds timeout)
    : core_(core), io_(io), timeout_(timeout) {}

revoke_drain::answer revoke_drain::on_revoked(const std::vector<partition_id>& ps, bool lost,
                                              std::int64_t now_ms) {
  const bool closing = phase_ == phase::closed;
  if (lost || closing) {
    finish(now_ms, true);
  }
  if (lost) {
    // Another member may have the partitions now, and the group refuses this member's commits.
    // What it finished is kept (consumer_core::assign uses it if it gets them back and nobody
    // committed meanwhile).
    give_up(ps, false);
    tell(revoke_report::step::lost, ps);
    return answer::now;
  }
  if (closing) {
    give_up(ps, false);  // the close committed them
    tell(revoke_report::step::given_up, ps);
    return answer::now;
  }
  core_.begin_revoke(ps);
  const auto waiting = core_.outstanding_of(ps);
  if (waiting == 0) {
    give_up(ps, true);
    tell(revoke_report::step::given_up, ps);
    return answer::now;
  }
  if (phase_ == phase::waiting) {
    revoking_.insert(revoking_.end(), ps.begin(), ps.end());
    tell(revoke_report::step::joined, ps, waiting, now_ms - started_ms_);
    return answer::later;
  }
  phase_ = phase::waiting;
  revoking_ = ps;
  started_ms_ = now_ms;
  ++waits_;
  io_.arm_deadline(timeout_, waits_);
  tell(revoke_report::step::waiting, ps, waiting);
  return answer::later;
}

void revoke_drain::before_assign(const std::vector<assigned_partition>& ps, std::int64_t now_ms) {
  const bool same_member = std::any_of(ps.begin(), ps.end(), [&](const assigned_partition& a) {
    return std::any_of(revoking_.begin(), revoking_.end(), [&](const partition_id& r) {
      return core_.gated(r.topic) == core_.gated(a.partition.topic);
    });
  });
  if (same_member) {
    finish(now_ms, true);
  }
}

void revoke_drain::on_outcomes(std::int64_t now_ms) { finish(now_ms, false); }

// Distinct by role: which wait the deadline was armed for, and the time now.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
void revoke_drain::on_deadline(std::uint64_t n, std::int64_t now_ms) {
  if (n == waits_) {
    finish(now_ms, true);
  }
}

void revoke_drain::close(std::int64_t now_ms) {
  finish(now_ms, true);
  phase_ = phase::closed;
}

void revoke_drain::finish(std::int64_t now_ms, bool at_deadline) {
  if (phase_ != phase::waiting) {
    return;
  }
  const auto left = core_.outstanding_of(revoking_);
  if (left > 0 && !at_deadline) {
    return;
  }
  phase_ = phase::idle;
  const auto ps = std::exchange(revoking_, {});
  give_up(ps, true);
  io_.complete_revoke();
  tell(revoke_report::step::given_up, ps, left, now_ms - started_ms_);
}

void revoke_drain::give_up(const std::vector<partition_id>& ps, bool commit) {
  if (commit) {
    io_.commit_final(ps);
  }
  core_.revoke(ps);
}

void revoke_drain::tell(revoke_report::step what, const std::vector<partition_id>& ps,
                        std::size_t in_flight, std::optional<std::int64_t> waited_ms) {
  io_.revoked(revoke_report{what, ps, in_flight, waited_ms});
}

}  // namespace courier
