#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "core/flow/head_of_line.hpp"
#include "core/flow/offset_map.hpp"
#include "core/flow/offset_tracker.hpp"
#include "core/flow/rebalance_memory.hpp"
#include "core/model/record.hpp"

namespace courier {

struct partition_book_settings {
  // max_in_flight_per_partition: its records with the delivery pool; 0: no bound of its own.
  std::size_t own_bound = 0;
  // The route's max_in_flight: the smallest hold at its own bound that pauses the partition.
  std::size_t route_bound = 256;
  std::size_t head_of_line_records = 1000;  // 0: no bound in records
  std::int64_t head_of_line_age_ms = 0;     // 0: no bound in time
};

// One assigned partition as the consumer core keeps it: its offsets (offset tracker), its
// head-of-line guard and the one wake armed for it, the records it holds at its own bound (the
// hold), the offsets of its records in the route's overflow, what it has with the delivery pool
// and how fast that comes back, its blocked onward records, and, once its revoke began, what it
// withholds from the next owner. The consumer core (core/flow/consumer_core.hpp) composes one
// per assigned partition and keeps what spans them: the route's overflow and room, the due
// gate, the pause reasons, the books of key order.
//
// In flight here = with the delivery pool + held + in the route's overflow + withheld + what
// the core holds for it elsewhere (the due gate, behind a key).
class partition_book {
 public:
  // Its tracker seeded with the offsets known done above the committed one, its head dated
  // from `now_ms`.
  partition_book(const partition_book_settings& s, const done_offsets& seed, std::int64_t now_ms);

  // -- offsets --------------------------------------------------------------------------------

  // A record fetched, written at `timestamp_ms` (its Kafka timestamp).
  [[nodiscard]] offset_tracker::track_result track(std::int64_t offset, std::int64_t timestamp_ms) {
    const auto result = tracker_.track(offset);
    if (result == offset_tracker::track_result::tracked) {
      taken_at_.emplace_back(offset, timestamp_ms);
    }
    return result;
  }
  // The Kafka timestamp of its oldest record not yet delivered or handed on (the lowest offset
  // in flight); none while nothing is in flight.
  [[nodiscard]] std::optional<std::int64_t> oldest_undelivered_timestamp_ms() const {
    return taken_at_.empty() ? std::nullopt : std::optional<std::int64_t>{taken_at_.front().second};
  }
  [[nodiscard]] const offset_tracker& tracker() const { return tracker_; }
  // The record at `offset` came back from the delivery pool: false, changing nothing, for one
  // withheld or not in flight. Its time with the delivery pool joins the mean.
  bool finish(std::int64_t offset, std::int64_t now_ms);
  // Records with the delivery pool as far as this book knows: in flight, less what it holds,
  // has in the route's overflow or withholds (the core subtracts the due gate's). Those
  // awaiting their receipt are among them.
  [[nodiscard]] std::size_t outstanding() const;

  // -- answered, awaiting the receipt -----------------------------------------------------------

  // The record at `offset`, with the delivery pool, was answered 2xx and waits for the broker
  // to acknowledge its receipt: it no longer counts against its own bound (its time with the
  // delivery pool ends here), and stays in flight, uncommitted, until finish(). False, changing
  // nothing, for one withheld, not in flight or already awaiting.
  bool awaiting_receipt(std::int64_t offset, std::int64_t now_ms);
  [[nodiscard]] bool is_awaiting_receipt(std::int64_t offset) const {
    return awaiting_receipt_.count(offset) != 0;
  }
  [[nodiscard]] std::size_t awaiting_receipt_count() const { return awaiting_receipt_.size(); }

  // -- its own bound ---------------------------------------------------------------------------

  // Its bound's worth is with the delivery pool.
  [[nodiscard]] bool at_own_bound() const;
  // A record of it now waits in the hold: at its own bound, or behind what it holds there.
  [[nodiscard]] bool behind_hold() const { return !held_.empty() || at_own_bound(); }
  void hold(record r) { held_.push_back(std::move(r)); }
  // The oldest record held, while it is below its own bound (none otherwise).
  std::optional<record> release_held();
  [[nodiscard]] std::size_t held_count() const { return held_.size(); }
  // A record went to the delivery pool (timed, with a bound of its own), or to the DLQ behind
  // an earlier record of its key (unattempted: not timed).
  void dispatched(std::int64_t offset, std::int64_t now_ms);
  void dead_lettered() { ++handed_out_; }
  // Backpressure with hysteresis: pause (true) once the hold is large, the route's bound or two
  // seconds of what it delivers at its bound if more; resume (false) at half; none: no bound of
  // its own (never paused for backpressure). Setting what is already set changes nothing.
  [[nodiscard]] std::optional<bool> backpressure() const;

  // -- the route's overflow --------------------------------------------------------------------

  // A record of it went to the route's overflow (waiting for room), or the oldest left it.
  void entered_overflow(std::int64_t offset) { overflowed_.push_back(offset); }
  void left_overflow() { overflowed_.pop_front(); }
  [[nodiscard]] bool in_overflow() const { return !overflowed_.empty(); }

  // -- head of line and wake -------------------------------------------------------------------

  // The head's offset when it holds the partition back beyond the bound, once per head.
  [[nodiscard]] std::optional<std::int64_t> check_head(std::int64_t now_ms) {
    return head_.check(tracker_, now_ms);
  }
  // Its head waits here, not with the delivery pool: first in the overflow or the hold.
  [[nodiscard]] bool head_held() const;
  // A wake_at fired at `now_ms` (armed for `armed_for_ms`, if known): the one armed is spent
  // once its time came by `now_ms`, or it is the one armed (early by a wall clock set back).
  void woke(std::int64_t now_ms, std::optional<std::int64_t> armed_for_ms);
  // The wake to arm, if any: the earlier of `due` (the gate's next due time) and the head's age
  // deadline (unless `head_waiting`), when no wake at or before it is armed already.
  std::optional<std::int64_t> arm_wake(std::optional<std::int64_t> due, bool head_waiting);

  // -- blocked onward records ------------------------------------------------------------------

  // Returns whether any of its records is blocked now.
  bool set_blocked(std::int64_t offset, bool on);
  // The record at `offset` finished: true when it was the last blocked one.
  bool unblock_finished(std::int64_t offset) {
    return blocked_.erase(offset) != 0 && blocked_.empty();
  }
  [[nodiscard]] std::size_t blocked_count() const { return blocked_.size(); }

  // -- revoke ----------------------------------------------------------------------------------

  // From here on it takes nothing and hands nothing out; false when it had begun already.
  bool begin_revoke();
  [[nodiscard]] bool revoking() const { return revoking_; }
  // Tracked, never handed out: left to the next owner, its outcome (if one comes) ignored.
  void withhold(std::int64_t offset) { withheld_.insert(offset); }
  // Its hold and its place in the overflow go: what it held is withheld. Returns how many
  // records it held.
  std::size_t withhold_held();
  [[nodiscard]] std::size_t withheld_count() const { return withheld_.size(); }
  // In flight and not withheld: with the delivery pool when it was revoked.
  [[nodiscard]] std::set<std::int64_t> handed_out_offsets() const;
  // What the consumer core remembers of it once it is revoked.
  [[nodiscard]] rebalance_memory::former_partition former() const {
    return {tracker_.committable(), tracker_.first_tracked(), tracker_.done_above_commit(),
            handed_out_offsets()};
  }

  // -- status ----------------------------------------------------------------------------------

  // Since when it is paused: the first call that saw it paused (none while it fetches).
  std::optional<std::int64_t> paused_since(bool paused, std::int64_t now_ms);

 private:
  [[nodiscard]] std::size_t large_hold() const;
  // The record at `offset` is no longer with the delivery pool (finished, or awaiting its
  // receipt): off its own bound, its time there joins the mean.
  void returned(std::int64_t offset, std::int64_t now_ms);

  partition_book_settings settings_;
  offset_tracker tracker_;
  head_of_line_guard head_;
  std::optional<std::int64_t> wake_armed_ms_;  // the earliest wake_at still to fire
  std::set<std::int64_t> blocked_;             // offsets whose onward produce is failing
  std::optional<std::int64_t> paused_since_ms_;
  std::deque<std::int64_t> overflowed_;  // its records' offsets in the route's overflow, in order
  // Fetched while its bound's worth was handed out: they go out first, in order, as its
  // outcomes come back. All precede its records in the route's overflow.
  std::deque<record> held_;
  std::size_t handed_out_ = 0;  // its records with the delivery pool, less those awaiting
  std::set<std::int64_t> awaiting_receipt_;  // answered 2xx, their receipts not yet acknowledged
  // With a bound of its own: when each record with the delivery pool went out, and the mean
  // time they spend there (moving), which tells how fast it delivers at its bound and so how
  // large a hold pauses it.
  std::map<std::int64_t, std::int64_t> sent_ms_;
  std::optional<double> pool_ms_;
  bool revoking_ = false;
  std::set<std::int64_t> withheld_;
  // The records in flight by offset with their timestamps, in the order taken (offsets grow):
  // its front is the oldest in flight once finish() dropped those no longer in flight.
  std::deque<std::pair<std::int64_t, std::int64_t>> taken_at_;
};

}  // namespace courier
