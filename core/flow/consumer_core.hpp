#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/flow/consumer_counters.hpp"
#include "core/flow/due_gate.hpp"
#include "core/flow/offset_map.hpp"
#include "core/flow/ordered_intake.hpp"
#include "core/flow/partition_book.hpp"
#include "core/flow/partition_pauses.hpp"
#include "core/flow/rebalance_memory.hpp"
#include "core/model/delivery_end.hpp"
#include "core/model/offset_commit.hpp"
#include "core/model/partition_id.hpp"
#include "core/model/record.hpp"
#include "core/model/record_position.hpp"

namespace courier {

// What the consumer core needs done outside itself. The consumer actor implements it with
// librdkafka and CAF messages; tests implement it with plain vectors.
class consumer_backend {
 public:
  // Hand the record to the delivery pool.
  virtual void dispatch(record r) = 0;
  // Ask the delivery pool to move a head-of-line record on to the next retry tier.
  virtual void expedite(const partition_id& p, std::int64_t offset) = 0;
  // Flip librdkafka's fetch flag of these partitions.
  virtual void pause(const std::vector<partition_id>& ps) = 0;
  virtual void resume(const std::vector<partition_id>& ps) = 0;
  // Call consumer_core::wake(p) at `at_ms` (wall clock): a gated record may be due, or a head
  // may pass the age bound. Arming again before it fired is fine (the core ignores early calls).
  virtual void wake_at(const partition_id& p, std::int64_t at_ms) = 0;
  // ordering.on_dead_letter "park": the record follows a dead-lettered one of its key; hand it
  // to the delivery pool to go to the DLQ behind it, unattempted (its outcome comes back as a
  // dispatched record's does).
  virtual void dead_letter(record r) = 0;
  // A retry-tier record whose due-time header does not parse: delivered now; say so.
  virtual void malformed_due(const record& r, const std::string& error) = 0;
  // A source record carried courier's provenance headers (`names`), which only courier writes
  // and only on its own topics (core/retry/provenance.hpp): they were taken off it; say so.
  virtual void untrusted_provenance(const record& r, const std::vector<std::string>& names) = 0;

 protected:
  ~consumer_backend() = default;
};

struct consumer_core_settings {
  std::size_t max_in_flight = 256;  // whole route
  // One partition's records with the delivery pool; 0: no bound of its own. What it fetched
  // beyond the bound is held (see consumer_core).
  std::size_t max_in_flight_per_partition = 0;
  std::size_t head_of_line_records = 1000;        // 0: no bound in records
  std::chrono::milliseconds head_of_line_age{0};  // 0: no bound in time
  // Retry-tier topics: their records pass the due-time gate before delivery.
  std::set<std::string> gated_topics;
  // The longest of the route's retry-tier delays: a due time further ahead than this (and
  // due_skew_allowance) was not written by courier's clock and delay, and is not waited for.
  std::chrono::milliseconds longest_retry_delay{0};
  // After this many records finished since the last commit, commit_due() says so: a burst is
  // committed before the commit interval is up. 0: only the interval.
  std::size_t commit_after_records = 0;
  // routes[].ordering: with "key", a record with a key is handed out only once every earlier
  // record of its key in its source partition was delivered or dead-lettered (key_order).
  key_ordering ordering;
  // With "key" on a route with several endpoints: the endpoint each record goes to, whose order
  // its key is kept in (ordered_intake); unset: the route's order.
  ordered_intake::key_scope order_scope;
  // The route's source topic: with ordering "key", the only topic whose partitions have a book.
  std::string source_topic;
};

// One partition's records since this consumer first had it. The identity
// consumed = delivered + retried + dead_lettered + filtered + released + already_done + in flight
// holds at every step (`filtered`: records for none of the route's endpoints): `released` are the
// records in flight when the partition was revoked (its next owner fetches them again; their late
// outcomes do not count here), `already_done` those the offset map committed with the partition
// said were done (not delivered again).
struct partition_accounting {
  std::uint64_t consumed = 0;  // fetched and taken (rewound duplicates are not)
  std::uint64_t delivered = 0;
  std::uint64_t retried = 0;
  std::uint64_t dead_lettered = 0;
  std::uint64_t released = 0;
  std::uint64_t already_done = 0;
  std::uint64_t filtered = 0;
};

// The consumer's protocol, with no I/O of its own (in the manner of Zeek Broker's
// channel<Backend>): one partition_book per assigned partition (its offsets, head, hold and
// wake), the ordered intake (ordered_intake: the books of key order and their followers), what
// spans the partitions (pause reasons, the due gate, the route's overflow, in-flight counts
// with O(1) totals), the memory of revoked partitions, the intake of fetched records, outcomes
// and revoke. It decides; the backend carries the decisions out. Single-threaded: the consumer
// actor calls it from its own thread (and from librdkafka's rebalance callbacks, which run inside
// that thread's poll).
//
// A record is in flight from take() to complete(). In flight = handed to the delivery pool
// (`outstanding`) + held in the due gate + held in overflow + held at its partition's bound.
// The route's bound applies to the records handed out; overflow holds what was fetched while
// the route was full, so a full route never pauses a partition (a pause drops librdkafka's
// prefetch and a resume waits for a refetch): the caller simply polls rarely until a refill is
// due. librdkafka's own prefetch, bounded by queued.max.messages.kbytes, is the byte budget.
// A partition's own bound (max_in_flight_per_partition) works the same way: what it fetched
// beyond the bound waits in the partition's hold and goes out, in order, as its outcomes come
// back. Only a hold that grew large (the route's max_in_flight, or two seconds of what the
// partition delivers at its bound if more) pauses the partition, and it is resumed at half: what
// is left covers the refetch.
//
// With ordering "key", every record with a key enters its source partition's book of key order
// when taken (a tier record by its courier.origin.* headers), and is handed out only when the book
// says so: until then it is a follower, held here in flight (not outstanding) and uncommitted,
// so a restart fetches it again and the tiers' records park its key again. A partition whose
// book is over its bounds is paused (pause_reason::ordering).
//
// A backend (an interface rather than a template parameter): the core is compiled once, in
// its module, and tested through a fake; one virtual call per decision is nothing beside the
// message it becomes.
class consumer_core {
 public:
  consumer_core(consumer_core_settings settings, consumer_backend& io);
  consumer_core(const consumer_core&) = delete;
  consumer_core& operator=(const consumer_core&) = delete;

  // Rebalance. A new partition takes the route-wide pause reasons, and the offsets its
  // committed offset map says are done (they are skipped when fetched). A revoked one forgets
  // its records (those not handed out are fetched again by its next owner); the outcomes of
  // those handed out still say what this consumer finished, but count for nothing else, also
  // once the partition is assigned here again and the same offsets are in flight anew. Got
  // back with the committed offset this consumer last saw (nobody committed meanwhile, as
  // after a lost assignment), what it finished since is taken as done, as if committed.
  void assign(const std::vector<assigned_partition>& ps, std::int64_t now_ms);
  void revoke(const std::vector<partition_id>& ps);
  // A revoke that waits for the records handed out (the drain on revoke): from here on the
  // partitions take no record and hand none out (what is held in the due gate or overflow is
  // left to the next owner); revoke() follows once they finished or the wait is over.
  void begin_revoke(const std::vector<partition_id>& ps);
  // Records of these partitions handed to the delivery pool and not finished.
  [[nodiscard]] std::size_t outstanding_of(const std::vector<partition_id>& ps) const;
  // Ordering "key": the source offsets of the records of its key after the record whose copy is
  // at `at`, not yet delivered or dead-lettered (what its DLQ record names); none unordered.
  [[nodiscard]] std::vector<std::int64_t> later_of_key(const record_position& at) const {
    return ordered_.later_of_key(at);
  }

  // What to commit: the commit point and offset map (at most `budget` characters) of every
  // assigned partition that changed since its last commit, or of `only` (changed or not).
  std::vector<offset_commit> commit_points(std::size_t budget);
  std::vector<offset_commit> commit_points(std::size_t budget,
                                           const std::vector<partition_id>& only);
  // The broker's answer to a commit: a failed one is committed again with the next.
  void committed(const commit_outcome& o);
  // Enough records finished since the last commit_points() (settings.commit_after_records).
  [[nodiscard]] bool commit_due() const;

  enum class intake : std::uint8_t {
    dispatched,    // handed to the delivery pool
    overflowed,    // kept until there is room (on the route, or below the partition's own bound)
    gated,         // a retry-tier record waiting for its due time
    duplicate,     // seen before (a rewind): dropped, the copy already counted is the one
    not_assigned,  // revoked (or being revoked) while the record was in the poll's hands: dropped
    already_done,  // the partition's offset map says it is done: not delivered again
    followed,      // ordering "key": held behind an earlier record of its key
  };
  // A record fetched from librdkafka.
  intake take(record r, std::int64_t now_ms);

  // ordering "key", at an assignment: a record of an assigned retry-tier partition read past its
  // committed offset before the consumer fetches it (the consumer actor's tier scan, done while
  // the assignment is handled, before any record is taken), so the keys that wait behind it are
  // parked before a record of its source partition goes out. One its offset map says is done,
  // one without a key, and one without a readable origin are left out.
  void enter_scanned(const record& r, std::int64_t now_ms);

  // The delivery pool finished the record (delivered, or acknowledged in a tier or the DLQ).
  // False for one of a partition no longer assigned, one handed out before a revoke, or one
  // not in flight.
  bool complete(const partition_id& p, std::int64_t offset, delivery_end how, std::int64_t now_ms);
  // The delivery pool's record was answered 2xx; its receipt is on its way to the broker. It
  // stays in flight and uncommitted until complete(), but leaves the route's bound (and its
  // partition's) to the records awaiting their receipts, whose own bound is receipt_wait_bounds
  // times max_in_flight: beyond it they count against the route's again. So a receipt's
  // produce, acknowledged about 13 ms after the answer on a loaded broker, does not keep an HTTP
  // delivery from starting. False, changing nothing, for one not outstanding, already awaiting,
  // or handed out before a revoke.
  bool awaiting_receipt(const partition_id& p, std::int64_t offset, std::int64_t now_ms);
  // A receipt's round trip to the broker (linger.ms and acks=all) is several times a fast
  // partner's answer: at 0 ms on the benchmark, 256 in flight deliver 54,000/s and a receipt
  // takes 13 ms, so about 700 records await theirs. Four bounds' worth covers that; their memory
  // is that of records in flight (the record, and its receipt in the producer's queue).
  static constexpr std::size_t receipt_wait_bounds = 4;

  // Hands out overflow records while there is room, oldest first; a partition whose head was
  // among them has its head-of-line bound checked from `now_ms` on.
  void release_overflow(std::int64_t now_ms);

  // The backend's wake_at fired: releases the partition's due records, checks its head's age.
  // `armed_for_ms`: the time that wake_at asked for, when the caller knows it. A timer runs on
  // the monotonic clock and `now_ms` is the wall clock's: set back meanwhile (an NTP step, a
  // VM resumed), the timer fires before its time by the wall clock, and is armed again.
  void wake(const partition_id& p, std::int64_t now_ms,
            std::optional<std::int64_t> armed_for_ms = std::nullopt);

  // A route-wide pause reason (breaker, shutdown) on every assigned partition and later ones;
  // returns the partitions whose reasons changed.
  std::vector<partition_id> set_route_reason(pause_reason r, bool on);

  // A record of the partition cannot be written to its retry tier or the DLQ (too large, topic
  // missing, not authorized; the retry router keeps trying): the partition stops fetching
  // until every such record of it is through, so it does not run ahead of a commit point that
  // cannot move. Returns whether the partition's pause reasons changed.
  bool set_blocked(const partition_id& p, std::int64_t offset, bool on);
  std::size_t blocked_count(const partition_id& p) const;

  std::size_t room() const;
  // Whether the caller should take records now: room for a refill (max_in_flight / 32, at least
  // one record). A full route then refills in batches as outcomes free room, instead of one
  // poll, one message to the pool and one wake of each thread on the way per outcome; at most
  // a thirty-second of the bound stays unused while the route is full.
  bool refill_due() const { return room() >= refill_batch(); }
  std::size_t refill_batch() const;
  std::size_t outstanding() const;  // handed to the delivery pool, not finished
  std::size_t awaiting_receipt() const { return awaiting_; }  // of outstanding()
  std::size_t in_flight() const { return tracked_; }          // outstanding + gated + overflow
  std::size_t paused_count() const { return pauses_.paused_count(); }
  // Whether a partition of a source topic (not a retry tier) is paused, for whatever reason: a
  // retry tier waiting for a due record is routine, a source partition paused is a wait courier
  // chose. O(partitions).
  bool source_paused() const;
  // Grows whenever a source partition's fetching is paused or resumed (fetch_starvation leaves
  // the wait for a resumed partition's refetch out).
  std::uint64_t source_pause_flips() const { return source_pause_flips_; }
  // A retry-tier topic: its records pass the due gate (settings.gated_topics).
  [[nodiscard]] bool gated(const std::string& topic) const {
    return settings_.gated_topics.count(topic) != 0;
  }
  bool assigned(const partition_id& p) const { return book_.count(p) != 0; }
  std::vector<partition_id> assignment() const;
  const consumer_counts& counts() const { return counts_; }
  // ordering "key": the books of key order kept, at most one per partition of the source topic.
  std::size_t order_book_count() const { return ordered_.book_count(); }

  // Per partition, for inspection: the commit point and what is in flight.
  struct partition_view {
    std::optional<std::int64_t> committable;
    std::size_t in_flight = 0;
    bool paused = false;
  };
  std::optional<partition_view> view(const partition_id& p) const;

  // Every partition this consumer has had, for /state and /metrics: assigned ones first with
  // their pause reasons (and since when: the first status taken after the pause), then the
  // revoked ones, whose counters stay (Prometheus counters never go back).
  struct partition_status {
    partition_id id;
    bool assigned = false;
    std::vector<pause_reason> reasons;  // empty: fetching
    std::optional<std::int64_t> paused_since_ms;
    std::optional<std::int64_t> committable;  // the next offset this consumer commits
    std::size_t in_flight = 0;
    std::size_t held_until_due = 0;  // of in_flight: retry-tier records waiting in the due gate
    // The Kafka timestamp of its oldest record not yet delivered or handed on; none: nothing
    // in flight.
    std::optional<std::int64_t> oldest_undelivered_ms;
    partition_accounting accounting;
    // ordering "key", a source partition with an order book here: its parked keys, the records
    // held behind an earlier one of their key (in any of its partitions), the oldest park.
    bool ordered = false;
    std::size_t parked_keys = 0;
    std::size_t followers = 0;
    std::optional<std::int64_t> oldest_parked_since_ms;
  };
  std::vector<partition_status> statuses(std::int64_t now_ms);
  // Grows whenever any partition's pause reasons change: the shell republishes statuses then.
  std::uint64_t pause_changes() const { return pause_changes_; }

 private:
  // -- route intake ---------------------------------------------------------------------------

  intake hand_out(partition_book& e, record r, std::int64_t now_ms);
  // Hands the record to the delivery pool, or holds it as a follower (false).
  bool send_out(partition_book& e, record r, std::int64_t now_ms);
  // Hands out what the partition holds at its bound while it is below it and the route has room.
  void release_over_bound(partition_book& e, std::int64_t now_ms);
  // What begin_revoke withholds: the partition's records not handed out.
  void withhold(const partition_id& p, partition_book& e);

  // -- ordering "key" --------------------------------------------------------------------------

  void enter_ordered(const record& r, std::int64_t now_ms);
  // The ordered copy at `offset` ended as `how`: what its book releases is handed out.
  void finish_ordered(const partition_id& p, std::int64_t offset, delivery_end how,
                      std::int64_t now_ms);
  void hand_out_released(const std::vector<key_order::release>& released, std::int64_t now_ms);
  // The ordering pause of the book's source partition, on while the book is over its bounds.
  // `force`: the source partition was (re)assigned, its pause reasons set anew.
  void update_ordering_pause(const partition_id& book, bool force = false);

  // -- pauses, heads and wakes -----------------------------------------------------------------

  void apply(const partition_pauses::change& c);
  void mark_changed(const partition_id& p);
  void check_head(const partition_id& p, partition_book& e, std::int64_t now_ms);
  // The partition's head is not handed out yet: its first record held in the due gate, in
  // overflow waiting for room, at its own bound, or behind its key.
  [[nodiscard]] bool head_waiting(const partition_id& p, const partition_book& e) const;
  void update_backpressure(const partition_id& p, const partition_book& e);

  // The seed of a partition assigned: what its offset map says, and what this consumer
  // finished since, when the committed offset is the one it last saw (rebalance_memory).
  done_offsets seed_for(const assigned_partition& a);

  consumer_core_settings settings_;
  consumer_backend& io_;
  partition_book_settings book_settings_;
  std::map<partition_id, partition_book> book_;            // the assigned partitions
  std::map<partition_id, partition_accounting> accounts_;  // kept across revokes
  std::uint64_t pause_changes_ = 0;
  std::uint64_t source_pause_flips_ = 0;
  partition_pauses pauses_;
  due_gate gate_;
  std::deque<record> overflow_;
  rebalance_memory memory_;
  std::set<partition_id> changed_;  // assigned, changed since their last commit_points()
  std::size_t finished_since_commit_ = 0;
  std::size_t tracked_ = 0;     // the sum of the trackers' in_flight()
  std::size_t withheld_ = 0;    // the sum of the books' withheld
  std::size_t over_bound_ = 0;  // the sum of the books' holds
  std::size_t releasing_ = 0;   // let out of the gate by wake(), being handed out
  std::size_t awaiting_ = 0;    // the sum of the books' awaiting_receipt_count()
  ordered_intake ordered_;
  std::int64_t latest_now_ms_ = 0;  // the latest time a call brought
  consumer_counts counts_;
};

std::string to_string(consumer_core::intake i);

}  // namespace courier
