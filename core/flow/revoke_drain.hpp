#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/flow/consumer_core.hpp"
#include "core/model/offset_commit.hpp"
#include "core/model/partition_id.hpp"

namespace courier {

// What the revoke drain tells its backend happened: for the log, and, once partitions were given
// up, for what follows from the assignment (the quota share, the statuses, a drain that may end).
struct revoke_report {
  enum class step : std::uint8_t {
    lost,  // given up uncommitted: the session timed out, the group refuses this member's commits
    given_up,  // committed and given up (uncommitted while closing: the close committed them)
    waiting,   // the revoke waits for the partitions' records handed out, up to its timeout
    joined,    // they join the revoke of the other member, which waits already, and end with it
  };
  step what = step::given_up;
  std::vector<partition_id> partitions;
  // waiting, joined: their records handed out and not finished; given_up after a wait: those
  // left when it ended (the next owner's: their outcomes change no commit).
  std::size_t in_flight = 0;
  // given_up after a wait: how long it waited; joined: how long the revoke it joins has waited.
  std::optional<std::int64_t> waited_ms;
};

// What the revoke drain needs done outside itself. The consumer actor implements it with
// librdkafka, a CAF timer and its log; tests with plain vectors.
class revoke_backend {
 public:
  // Commit these partitions' commit points (and offset maps) synchronously: they are given up
  // next.
  virtual void commit_final(const std::vector<partition_id>& ps) = 0;
  // The revoke answered `later` is over: the group may give the partitions to their next owner.
  virtual void complete_revoke() = 0;
  // Call revoke_drain::on_deadline(n) after `after`.
  virtual void arm_deadline(std::chrono::milliseconds after, std::uint64_t n) = 0;
  virtual void revoked(const revoke_report& r) = 0;

 protected:
  ~revoke_backend() = default;
};

// The drain on revoke (docs/architecture.md, once per event): a revoke of partitions whose
// records are with the delivery pool answers `later`, and the consumer core stops taking and
// handing out their records; once those finished, or revoke_drain_timeout passed, the
// partitions are committed and given up. A lost assignment is given up at once, uncommitted;
// so is a revoke while the consumer closes (its close committed them). Two members of a split
// consumer (the source's and the tiers') may each revoke: one that arrives while the other's
// waits joins it and ends with it, and an assignment to the member whose revoke waits ends it.
//
// A plain class in the manner of consumer_core: it decides, drives the core, and its backend
// carries out the rest. Single-threaded, no clock of its own (times come in as arguments).
class revoke_drain {
 public:
  enum class phase : std::uint8_t {
    idle,     // no revoke waits
    waiting,  // a revoke answered `later` and waits for its records
    closed,   // the consumer closes: every revoke is given up at once
  };
  // To the group: the partitions are given up when the callback returns, or at complete_revoke.
  enum class answer : std::uint8_t { now, later };

  revoke_drain(consumer_core& core, revoke_backend& io, std::chrono::milliseconds timeout);

  // -- events ----------------------------------------------------------------------------------

  // librdkafka's revoke callback.
  answer on_revoked(const std::vector<partition_id>& ps, bool lost, std::int64_t now_ms);
  // Before an assignment reaches the core: the member given these partitions has moved on, so a
  // revoke of its topics still waiting ends now (another member's goes on waiting).
  void before_assign(const std::vector<assigned_partition>& ps, std::int64_t now_ms);
  // Outcomes came: the revoke waiting ends once its records finished.
  void on_outcomes(std::int64_t now_ms);
  // The deadline armed as `n` passed: the revoke waiting ends, if it is still that one.
  void on_deadline(std::uint64_t n, std::int64_t now_ms);
  // The consumer closes: a revoke waiting ends now; later ones are given up at once.
  void close(std::int64_t now_ms);

  // -- observers -------------------------------------------------------------------------------

  [[nodiscard]] phase state() const { return phase_; }
  // The partitions of the revoke waiting (empty unless waiting).
  [[nodiscard]] const std::vector<partition_id>& waiting_for() const { return revoking_; }

 private:
  // The revoke waiting ends if its records finished, or `at_deadline` in any case.
  void finish(std::int64_t now_ms, bool at_deadline);
  void give_up(const std::vector<partition_id>& ps, bool commit);
  void tell(revoke_report::step what, const std::vector<partition_id>& ps,
            std::size_t in_flight = 0, std::optional<std::int64_t> waited_ms = std::nullopt);

  consumer_core& core_;
  revoke_backend& io_;
  std::chrono::milliseconds timeout_;
  phase phase_ = phase::idle;
  std::vector<partition_id> revoking_;
  std::int64_t started_ms_ = 0;
  std::uint64_t waits_ = 0;  // tells a wait's deadline from an earlier one's
};

}  // namespace courier
