#include "core/flow/consumer_core.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "core/retry/provenance.hpp"

namespace courier {

consumer_core::consumer_core(consumer_core_settings settings, consumer_backend& io)
    : settings_(std::move(settings)),
      io_(io),
      book_settings_{settings_.max_in_flight_per_partition, settings_.max_in_flight,
                     settings_.head_of_line_records, settings_.head_of_line_age.count()},
      ordered_(settings_.ordering, settings_.source_topic, settings_.order_scope) {}

void consumer_core::assign(const std::vector<assigned_partition>& ps, std::int64_t now_ms) {
  for (const auto& a : ps) {
    const auto& p = a.partition;
    if (book_.count(p) == 0) {
      book_.emplace(p, partition_book{book_settings_, seed_for(a), now_ms});
    }
    apply(pauses_.assign(p));
    update_ordering_pause(p, true);
  }
}

done_offsets consumer_core::seed_for(const assigned_partition& a) {
  const auto& p = a.partition;
  done_offsets seed;
  if (a.committed) {
    done_offsets dead_parked;
    switch (decode_offset_map(a.metadata, *a.committed, seed, &dead_parked)) {
      case offset_map_read::none:
        break;
      case offset_map_read::read:
        ++counts_[consumer_counter::offset_maps_read];
        ordered_.park_dead_lettered(p, std::move(dead_parked));
        break;
      case offset_map_read::foreign:
      case offset_map_read::malformed:
        ++counts_[consumer_counter::offset_maps_ignored];
        break;
      case offset_map_read::other_base:
        ++counts_[consumer_counter::offset_maps_other_offset];
        break;
    }
  }
  return memory_.assigned(p, a.committed, std::move(seed));
}

void consumer_core::begin_revoke(const std::vector<partition_id>& ps) {
  for (const auto& p : ps) {
    auto it = book_.find(p);
    if (it == book_.end() || !it->second.begin_revoke()) {
      continue;
    }
    withhold(p, it->second);
    if (auto released = ordered_.forget(p, latest_now_ms_)) {
      update_ordering_pause(released->book);
      hand_out_released(released->go, latest_now_ms_);
    }
  }
}

// What was never handed out (held in the due gate, in overflow, at its bound or behind its key)
// stays in flight, not done: the next owner fetches it again.
void consumer_core::withhold(const partition_id& p, partition_book& e) {
  for (const auto offset : gate_.drop(p)) {
    e.withhold(offset);
  }
  overflow_.erase(std::remove_if(overflow_.begin(), overflow_.end(),
                                 [&](const record& r) {
                                   const bool of_p =
                                       r.topic == p.topic && r.partition == p.partition;
                                   if (of_p) {
                                     e.withhold(r.offset);
                                   }
                                   return of_p;
                                 }),
                  overflow_.end());
  over_bound_ -= e.withhold_held();
  for (const auto offset : ordered_.drop_followers(p)) {
    e.withhold(offset);
  }
  withheld_ += e.withheld_count();
}

std::size_t consumer_core::outstanding_of(const std::vector<partition_id>& ps) const {
  std::size_t n = 0;
  for (const auto& p : ps) {
    auto it = book_.find(p);
    if (it == book_.end()) {
      continue;
    }
    n += it->second.outstanding() - gate_.held_count(p);
  }
  return n;
}

void consumer_core::revoke(const std::vector<partition_id>& ps) {
  begin_revoke(ps);
  for (const auto& p : ps) {
    auto it = book_.find(p);
    if (it == book_.end()) {
      continue;
    }
    const auto& e = it->second;
    const auto& t = e.tracker();
    accounts_[p].released += t.in_flight();
    tracked_ -= t.in_flight();
    awaiting_ -= e.awaiting_receipt_count();
    withheld_ -= e.withheld_count();
    memory_.revoked(p, e.former());
    changed_.erase(p);
    book_.erase(it);
    pauses_.revoke(p);  // the librdkafka wrapper resumes a revoked partition before giving it up
  }
}

consumer_core::intake consumer_core::take(record r, std::int64_t now_ms) {
  const partition_id p{r.topic, r.partition};
  auto it = book_.find(p);
  if (it == book_.end()) {
    return intake::not_assigned;
  }
  auto& e = it->second;
  if (e.revoking()) {
    return intake::not_assigned;  // left to the next owner, as the records withheld
  }
  switch (e.track(r.offset, r.timestamp_ms)) {
    case offset_tracker::track_result::tracked:
      break;
    case offset_tracker::track_result::duplicate:
      // A rewind re-delivered a record this consumer holds or finished: the copy it has (or
      // had) is the one that counts; handing this one out too would make the in-flight
      // bookkeeping disagree with the tracker.
      ++counts_[consumer_counter::rewound_duplicates];
      return intake::duplicate;
    case offset_tracker::track_result::already_done:
      ++counts_[consumer_counter::consumed];
      ++counts_[consumer_counter::already_done];
      ++accounts_[p].consumed;
      ++accounts_[p].already_done;
      mark_changed(p);
      check_head(p, e, now_ms);
      return intake::already_done;
  }
  ++counts_[consumer_counter::consumed];
  ++accounts_[p].consumed;
  latest_now_ms_ = now_ms;
  const bool from_source = !gated(r.topic);
  if (from_source) {
    // A source record: whatever courier.* provenance it carries was written by its producer.
    if (const auto names = drop_untrusted_provenance(r.headers); !names.empty()) {
      ++counts_[consumer_counter::untrusted_provenance];
      io_.untrusted_provenance(r, names);
    }
  }
  enter_ordered(r, now_ms);
  intake result = intake::gated;
  if (from_source) {
    result = hand_out(e, std::move(r), now_ms);
  } else {
    const auto due = read_due(r, now_ms, settings_.longest_retry_delay);
    if (due.malformed) {
      io_.malformed_due(r, *due.malformed);
    }
    const bool was_holding = gate_.holds(p);
    if (auto admitted = gate_.admit(std::move(r), due.due_ms, now_ms)) {
      result = hand_out(e, std::move(*admitted), now_ms);
    } else if (!was_holding) {
      apply(pauses_.set(p, pause_reason::retry_due, true));
    }
  }
  ++tracked_;  // after hand_out: room() counts the records handed out so far
  update_backpressure(p, e);
  check_head(p, e, now_ms);
  return result;
}

void consumer_core::enter_scanned(const record& r, std::int64_t now_ms) {
  const auto it = book_.find(partition_id{r.topic, r.partition});
  if (it == book_.end() || !gated(r.topic)) {
    return;
  }
  if (it->second.tracker().known_done(r.offset)) {
    return;
  }
  latest_now_ms_ = now_ms;
  enter_ordered(r, now_ms);
}

bool consumer_core::complete(const partition_id& p, std::int64_t offset, delivery_end how,
                             std::int64_t now_ms) {
  if (memory_.finished_before_revoke(p, offset)) {
    return false;
  }
  auto it = book_.find(p);
  if (it == book_.end()) {
    return false;  // revoked: the partition's new owner delivers it again (at-least-once)
  }
  auto& e = it->second;
  const bool was_awaiting = e.is_awaiting_receipt(offset);
  if (!e.finish(offset, now_ms)) {
    return false;
  }
  --tracked_;
  if (was_awaiting) {
    --awaiting_;
  }
  auto& account = accounts_[p];
  switch (how) {
    case delivery_end::delivered:
      ++account.delivered;
      break;
    case delivery_end::retried:
      ++account.retried;
      break;
    case delivery_end::dead_lettered:
      ++account.dead_lettered;
      break;
    case delivery_end::filtered:
      ++account.filtered;
      break;
  }
  latest_now_ms_ = now_ms;
  finish_ordered(p, offset, how, now_ms);
  if (e.unblock_finished(offset)) {
    apply(pauses_.set(p, pause_reason::produce_blocked, false));
  }
  mark_changed(p);
  release_over_bound(e, now_ms);
  update_backpressure(p, e);
  check_head(p, e, now_ms);
  return true;
}

bool consumer_core::awaiting_receipt(const partition_id& p, std::int64_t offset,
                                     std::int64_t now_ms) {
  auto it = book_.find(p);
  if (it == book_.end() || memory_.handed_out_before_revoke(p, offset) ||
      !it->second.awaiting_receipt(offset, now_ms)) {
    return false;
  }
  ++awaiting_;
  latest_now_ms_ = now_ms;
  release_over_bound(it->second, now_ms);
  update_backpressure(p, it->second);
  return true;
}

void consumer_core::release_overflow(std::int64_t now_ms) {
  std::set<partition_id> released;
  while (room() > 0 && !overflow_.empty()) {
    auto r = std::move(overflow_.front());
    overflow_.pop_front();
    partition_id p{r.topic, r.partition};
    // Revoked partitions' records left the overflow with their entry: every one here has one.
    auto& e = book_.at(p);
    e.left_overflow();
    if (e.behind_hold()) {
      e.hold(std::move(r));  // behind what it holds: its later ones follow
      ++over_bound_;
    } else {
      send_out(e, std::move(r), now_ms);
    }
    released.insert(std::move(p));
  }
  // Partitions whose outcomes came while the route was full: their holds go out now.
  for (auto it = book_.begin(); over_bound_ > 0 && room() > 0 && it != book_.end(); ++it) {
    if (it->second.held_count() != 0) {
      release_over_bound(it->second, now_ms);
      released.insert(it->first);
    }
  }
  // A head that was waiting here is in the delivery pool now: the guard dates it from here.
  for (const auto& p : released) {
    auto& e = book_.at(p);
    update_backpressure(p, e);
    check_head(p, e, now_ms);
  }
}

void consumer_core::wake(const partition_id& p, std::int64_t now_ms,
                         std::optional<std::int64_t> armed_for_ms) {
  auto it = book_.find(p);
  if (it == book_.end()) {
    return;
  }
  auto& e = it->second;
  e.woke(now_ms, armed_for_ms);
  if (gate_.holds(p)) {
    auto due = gate_.release(p, now_ms);
    releasing_ = due.size();  // out of the gate, not yet handed out: not outstanding either
    for (auto& r : due) {
      (void)hand_out(e, std::move(r), now_ms);
      --releasing_;
    }
    if (!gate_.holds(p)) {
      apply(pauses_.set(p, pause_reason::retry_due, false));
    }
    update_backpressure(p, e);
  }
  check_head(p, e, now_ms);
}

std::vector<partition_id> consumer_core::set_route_reason(pause_reason r, bool on) {
  const auto c = pauses_.set_everywhere(r, on);
  apply(c);
  return c.touched;
}

bool consumer_core::set_blocked(const partition_id& p, std::int64_t offset, bool on) {
  auto it = book_.find(p);
  if (it == book_.end()) {
    return false;
  }
  const auto c = pauses_.set(p, pause_reason::produce_blocked, it->second.set_blocked(offset, on));
  apply(c);
  return !c.touched.empty();
}

std::size_t consumer_core::blocked_count(const partition_id& p) const {
  auto it = book_.find(p);
  return it == book_.end() ? 0 : it->second.blocked_count();
}

std::vector<offset_commit> consumer_core::commit_points(std::size_t budget) {
  const std::vector<partition_id> changed{changed_.begin(), changed_.end()};
  return commit_points(budget, changed);
}

std::vector<offset_commit> consumer_core::commit_points(std::size_t budget,
                                                        const std::vector<partition_id>& only) {
  std::vector<offset_commit> out;
  for (const auto& p : only) {
    changed_.erase(p);
    auto it = book_.find(p);
    if (it == book_.end()) {
      continue;
    }
    const auto& t = it->second.tracker();
    if (const auto next = t.committable()) {
      memory_.sent(p, *next);
      out.push_back(offset_commit{
          p, *next,
          encode_offset_map(*next, t.done_above_commit(), budget, ordered_.dead_parked(p))});
    }
  }
  if (changed_.empty()) {
    finished_since_commit_ = 0;
  }
  return out;
}

void consumer_core::committed(const commit_outcome& o) {
  if (o.error.empty()) {
    memory_.committed(o.partition, o.offset);
  } else if (book_.count(o.partition) != 0) {
    changed_.insert(o.partition);  // with the next commit
  }
}

bool consumer_core::commit_due() const {
  return settings_.commit_after_records != 0 &&
         finished_since_commit_ >= settings_.commit_after_records;
}

std::size_t consumer_core::outstanding() const {
  return tracked_ - overflow_.size() - gate_.size() - releasing_ - withheld_ - over_bound_ -
         ordered_.follower_count();
}

bool consumer_core::source_paused() const {
  return std::any_of(book_.begin(), book_.end(), [&](const auto& entry) {
    return !gated(entry.first.topic) && pauses_.is_paused(entry.first);
  });
}

std::size_t consumer_core::room() const {
  // Records awaiting their receipts have receipt_wait_bounds of the route's bound of their own;
  // beyond it they count against the route's bound again.
  const auto bound = settings_.max_in_flight;
  const auto own = receipt_wait_bounds * bound;
  const auto beyond = awaiting_ > own ? awaiting_ - own : 0;
  const auto taken = outstanding() - awaiting_ + beyond;
  return bound > taken ? bound - taken : 0;
}

std::size_t consumer_core::refill_batch() const {
  constexpr std::size_t refill_fraction = 32;
  return std::max<std::size_t>(1, settings_.max_in_flight / refill_fraction);
}

std::vector<partition_id> consumer_core::assignment() const {
  std::vector<partition_id> out;
  out.reserve(book_.size());
  for (const auto& [p, e] : book_) {
    out.push_back(p);
  }
  return out;
}

consumer_core::intake consumer_core::hand_out(partition_book& e, record r, std::int64_t now_ms) {
  // At its own bound, or behind what it holds there: held, not paused (a pause would drop
  // librdkafka's prefetch of it and a resume wait for a refetch). Behind records of it waiting
  // in the route's overflow, it waits there too: they go first.
  if (!e.in_overflow() && e.behind_hold()) {
    e.hold(std::move(r));
    ++over_bound_;
    return intake::overflowed;
  }
  if (room() == 0 || !overflow_.empty()) {
    e.entered_overflow(r.offset);
    overflow_.push_back(std::move(r));
    return intake::overflowed;
  }
  return send_out(e, std::move(r), now_ms) ? intake::dispatched : intake::followed;
}

bool consumer_core::send_out(partition_book& e, record r, std::int64_t now_ms) {
  switch (ordered_.admit(r)) {
    case key_order::verdict::attempt:
      break;
    case key_order::verdict::follow:
      update_ordering_pause(ordered_.follow(std::move(r)));
      return false;
    case key_order::verdict::dead_letter:
      e.dead_lettered();
      io_.dead_letter(std::move(r));
      return true;
  }
  e.dispatched(r.offset, now_ms);
  io_.dispatch(std::move(r));
  return true;
}

void consumer_core::release_over_bound(partition_book& e, std::int64_t now_ms) {
  while (room() > 0) {
    auto r = e.release_held();
    if (!r) {
      return;
    }
    --over_bound_;
    send_out(e, std::move(*r), now_ms);
  }
}

void consumer_core::enter_ordered(const record& r, std::int64_t now_ms) {
  if (const auto book = ordered_.enter(r, gated(r.topic), now_ms)) {
    update_ordering_pause(*book);
  }
}

void consumer_core::finish_ordered(const partition_id& p, std::int64_t offset, delivery_end how,
                                   std::int64_t now_ms) {
  if (auto released = ordered_.finish(p, offset, how, now_ms)) {
    update_ordering_pause(released->book);
    hand_out_released(released->go, now_ms);
  }
}

void consumer_core::hand_out_released(const std::vector<key_order::release>& released,
                                      std::int64_t now_ms) {
  for (const auto& r : released) {
    auto rec = ordered_.release(r.at);
    if (!rec) {
      continue;  // its partition was revoked meanwhile: its next owner has it
    }
    const partition_id p = r.at.partition_of();
    auto& e = book_.at(p);
    (void)hand_out(e, std::move(*rec), now_ms);
    update_backpressure(p, e);
    check_head(p, e, now_ms);
  }
}

void consumer_core::update_ordering_pause(const partition_id& book, bool force) {
  if (book_.count(book) == 0) {
    return;  // the source partition is not here: set at its assignment
  }
  if (const auto over = ordered_.ordering_pause(book, force)) {
    apply(pauses_.set(book, pause_reason::ordering, *over));
  }
}

void consumer_core::apply(const partition_pauses::change& c) {
  if (!c.touched.empty()) {
    ++pause_changes_;
  }
  const auto of_source = [&](const partition_id& p) { return !gated(p.topic); };
  if (std::any_of(c.pause.begin(), c.pause.end(), of_source) ||
      std::any_of(c.resume.begin(), c.resume.end(), of_source)) {
    ++source_pause_flips_;
  }
  if (!c.pause.empty()) {
    io_.pause(c.pause);
  }
  if (!c.resume.empty()) {
    io_.resume(c.resume);
  }
}

void consumer_core::mark_changed(const partition_id& p) {
  changed_.insert(p);
  ++finished_since_commit_;
}

// The head-of-line bound: a head that holds its partition back too far is moved on by the
// delivery pool (to the next retry tier, unless it is held by the breaker or the endpoint).
// One pending wake per partition at most, for the earlier of its gate's next due time and its
// head's age deadline: no timer per record.
void consumer_core::check_head(const partition_id& p, partition_book& e, std::int64_t now_ms) {
  // A head still waiting for its due time in the gate, or for room in overflow, is not stuck: the
  // delivery pool does not have it yet, so it could not move it on (an expedite would find
  // nothing, and the head would count as reported), and the bound would be spent on it. The
  // guard sees it (and dates it) once it is handed out.
  if (!head_waiting(p, e)) {
    if (const auto head = e.check_head(now_ms)) {
      io_.expedite(p, *head);
    }
  }
  if (const auto at = e.arm_wake(gate_.next_due(p), head_waiting(p, e))) {
    io_.wake_at(p, *at);
  }
}

bool consumer_core::head_waiting(const partition_id& p, const partition_book& e) const {
  const auto head = e.tracker().head();
  if (!head) {
    return false;
  }
  if (e.head_held()) {
    return true;
  }
  if (ordered_.is_follower(record_position{p.topic, p.partition, *head})) {
    return true;  // it waits for its key, not for the delivery pool: nothing to move on
  }
  const auto held = gate_.first_held_offset(p);
  return held && held == head;
}

// Backpressure per partition, with hysteresis (partition_book::backpressure): a partition at
// its own bound holds what it fetched beyond it, and is paused only once that hold is large;
// resumed at half, so what is left covers the second or so librdkafka takes to fetch a resumed
// partition again. Without a bound of its own (the default) it is never paused for that.
void consumer_core::update_backpressure(const partition_id& p, const partition_book& e) {
  const auto pause = e.backpressure();
  if (!pause) {
    return;
  }
  const auto c = pauses_.set(p, pause_reason::backpressure, *pause);
  if (*pause && !c.touched.empty()) {
    ++counts_[consumer_counter::backpressure_pauses];
  }
  apply(c);
}

}  // namespace courier
