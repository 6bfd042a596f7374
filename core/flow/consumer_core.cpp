#include "core/flow/consumer_core.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "core/retry/provenance.hpp"
#include "core/retry/retry_headers.hpp"

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

consumer_core::consumer_core(consumer_core_settings settings, consumer_backend& io)
    : settings_(std::move(settings)), io_(io) {}

void consumer_core::assign(const std::vector<assigned_partition>& ps, std::int64_t now_ms) {
  for (const auto& a : ps) {
    const auto& p = a.partition;
    auto [it, fresh] =
        book_.try_emplace(p, partition_entry{offset_tracker{},
                                             head_of_line_guard{settings_.head_of_line_records,
                                                                settings_.head_of_line_age.count()},
                                             std::nullopt,
                                             {},
                                             std::nullopt,
                                             {},
                                             {},
                                             0,
                                             {},
                                             std::nullopt,
                                             false,
                                             {},
                                             {}});
    if (fresh) {
      it->second.tracker.seed(seed_for(a));
      (void)it->second.head.check(it->second.tracker, now_ms);
    }
    apply(pauses_.assign(p));
    if (const auto book = orders_.find(p); book != orders_.end()) {
      update_ordering_pause(*book, true);
    }
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
        if (!dead_parked.empty() && settings_.ordering.mode == ordering_mode::key &&
            settings_.ordering.on_dead_letter == dead_letter_followers::park &&
            p.topic == settings_.source_topic) {
          // Before any of its records is taken: they park their keys behind the DLQ again.
          book_of(p).second.order.park_behind_dead_letter(std::move(dead_parked));
        }
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
  auto former = former_.find(p);
  if (former == former_.end()) {
    if (a.committed) {
      last_committed_[p] = *a.committed;
    }
    return seed;
  }
  // Nobody committed since this consumer last did (or last found committed): what it finished
  // meanwhile is still ahead of the commit point, and done.
  const auto last = last_committed_.find(p);
  if (a.committed && last != last_committed_.end() && last->second == *a.committed &&
      former->second.commit_point) {
    seed.add(*a.committed, *former->second.commit_point);
    for (const auto& [begin, end] : former->second.done.runs()) {
      seed.add(begin, end);
    }
    seed.erase_below(*a.committed);
  }
  // The records still with the delivery pool are fetched again: their outcomes, when they
  // come, are the old copies'.
  for (const auto offset : former->second.handed_out) {
    orphans_[p].insert(offset);
  }
  former_.erase(former);
  if (a.committed) {
    last_committed_[p] = *a.committed;
  }
  return seed;
}

void consumer_core::begin_revoke(const std::vector<partition_id>& ps) {
  for (const auto& p : ps) {
    auto it = book_.find(p);
    if (it == book_.end() || it->second.revoking) {
      continue;
    }
    auto& e = it->second;
    e.revoking = true;
    // What was never handed out (held in the due gate or in overflow) stays in flight, not done:
    // the next owner fetches it again.
    for (const auto offset : gate_.drop(p)) {
      e.withheld.insert(offset);
    }
    overflow_.erase(std::remove_if(overflow_.begin(), overflow_.end(),
                                   [&](const record& r) {
                                     const bool of_p =
                                         r.topic == p.topic && r.partition == p.partition;
                                     if (of_p) {
                                       e.withheld.insert(r.offset);
                                     }
                                     return of_p;
                                   }),
                    overflow_.end());
    e.overflowed.clear();
    for (const auto& r : e.over_bound) {
      e.withheld.insert(r.offset);
    }
    over_bound_ -= e.over_bound.size();
    e.over_bound.clear();
    const record_position first{p.topic, p.partition, std::numeric_limits<std::int64_t>::min()};
    for (auto f = followers_.lower_bound(first);
         f != followers_.end() && f->first.partition_of() == p;) {
      e.withheld.insert(f->first.offset);
      f = followers_.erase(f);
    }
    withheld_ += e.withheld.size();
    forget_ordered(p, e, latest_now_ms_);
  }
}

std::size_t consumer_core::outstanding_of(const std::vector<partition_id>& ps) const {
  std::size_t n = 0;
  for (const auto& p : ps) {
    auto it = book_.find(p);
    if (it == book_.end()) {
      continue;
    }
    const auto& e = it->second;
    n += e.tracker.in_flight() - e.withheld.size() - e.overflowed.size() - e.over_bound.size() -
         gate_.held_count(p);
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
    auto& e = it->second;
    accounts_[p].released += e.tracker.in_flight();
    tracked_ -= e.tracker.in_flight();
    withheld_ -= e.withheld.size();
    former_partition former;
    former.commit_point = e.tracker.committable();
    former.done = e.tracker.done_above_commit();
    for (const auto offset : e.tracker.in_flight_offsets()) {
      if (e.withheld.count(offset) == 0) {
        former.handed_out.insert(offset);
      }
    }
    former_[p] = std::move(former);
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
  if (e.revoking) {
    return intake::not_assigned;  // left to the next owner, as the records withheld
  }
  switch (e.tracker.track(r.offset)) {
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
  if (settings_.gated_topics.count(r.topic) == 0) {
    // A source record: whatever courier.* provenance it carries was written by its producer.
    if (const auto names = drop_untrusted_provenance(r.headers); !names.empty()) {
      ++counts_[consumer_counter::untrusted_provenance];
      io_.untrusted_provenance(r, names);
    }
  }
  enter_ordered(e, r, now_ms);
  intake result = intake::gated;
  if (settings_.gated_topics.count(r.topic) == 0) {
    result = hand_out(e, std::move(r), now_ms);
  } else {
    std::int64_t due = 0;
    try {
      due = read_retry_state(r.headers).due_ms.value_or(0);
    } catch (const header_error& err) {
      io_.malformed_due(r, err.what());
    }
    // Written in other units, by a clock far off or by hand (up to INT64_MAX): held, it would
    // stop its partition for as long, and its wake-up time would overflow.
    const auto latest_due = now_ms + (settings_.longest_retry_delay + due_skew_allowance).count();
    if (due > latest_due) {
      io_.malformed_due(r, "due time " + std::to_string(due) +
                               " is more than the longest retry "
                               "delay and " +
                               std::to_string(due_skew_allowance.count() / 1000) +
                               " s after now (" + std::to_string(now_ms) + ")");
      due = 0;
    }
    const bool was_holding = gate_.holds(p);
    if (auto admitted = gate_.admit(std::move(r), due, now_ms)) {
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
  if (it == book_.end() || settings_.gated_topics.count(r.topic) == 0) {
    return;
  }
  if (it->second.tracker.known_done(r.offset)) {
    return;
  }
  latest_now_ms_ = now_ms;
  enter_ordered(it->second, r, now_ms);
}

bool consumer_core::complete(const partition_id& p, std::int64_t offset, delivery_end how,
                             std::int64_t now_ms) {
  if (auto f = former_.find(p); f != former_.end()) {
    // Handed out before a revoke, and the partition not assigned here since: finished, which
    // a later assignment may use (seed_for), but it counts for nothing else.
    if (f->second.handed_out.erase(offset) != 0) {
      f->second.done.add(offset, offset + 1);
      return false;
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
      return false;
    }
  }
  auto it = book_.find(p);
  if (it == book_.end()) {
    return false;  // revoked: the partition's new owner delivers it again (at-least-once)
  }
  auto& e = it->second;
  if (e.withheld.count(offset) != 0 || !e.tracker.complete(offset)) {
    return false;
  }
  --tracked_;
  if (e.handed_out > 0) {
    --e.handed_out;
  }
  note_finished(offset, e, now_ms);
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
  }
  latest_now_ms_ = now_ms;
  finish_ordered(e, p, offset, how, now_ms);
  if (e.blocked.erase(offset) != 0 && e.blocked.empty()) {
    apply(pauses_.set(p, pause_reason::produce_blocked, false));
  }
  mark_changed(p);
  release_over_bound(e, now_ms);
  update_backpressure(p, e);
  check_head(p, e, now_ms);
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
    e.overflowed.pop_front();
    if (!e.over_bound.empty() || at_own_bound(e)) {
      e.over_bound.push_back(std::move(r));  // behind what it holds: its later ones follow
      ++over_bound_;
    } else {
      send_out(e, std::move(r), now_ms);
    }
    released.insert(std::move(p));
  }
  // Partitions whose outcomes came while the route was full: their holds go out now.
  for (auto it = book_.begin(); over_bound_ > 0 && room() > 0 && it != book_.end(); ++it) {
    if (!it->second.over_bound.empty()) {
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
  if (e.wake_armed_ms && (now_ms >= *e.wake_armed_ms || armed_for_ms == e.wake_armed_ms)) {
    // That timer fired (early by a wall clock set back, if it was the one armed for it): no
    // earlier one is pending any more, and arm_wake below arms the next.
    e.wake_armed_ms.reset();
  }
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
  auto& blocked = it->second.blocked;
  if (on) {
    blocked.insert(offset);
  } else {
    blocked.erase(offset);
  }
  const auto c = pauses_.set(p, pause_reason::produce_blocked, !blocked.empty());
  apply(c);
  return !c.touched.empty();
}

std::size_t consumer_core::blocked_count(const partition_id& p) const {
  auto it = book_.find(p);
  return it == book_.end() ? 0 : it->second.blocked.size();
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
    const auto& t = it->second.tracker;
    if (const auto next = t.committable()) {
      const auto book = orders_.find(p);
      const auto dead_parked =
          book == orders_.end() ? done_offsets{} : book->second.order.dead_parked_origins();
      out.push_back(offset_commit{
          p, *next, encode_offset_map(*next, t.done_above_commit(), budget, dead_parked)});
    }
  }
  if (changed_.empty()) {
    finished_since_commit_ = 0;
  }
  return out;
}

void consumer_core::committed(const commit_outcome& o) {
  if (o.error.empty()) {
    last_committed_[o.partition] = o.offset;
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
         followers_.size();
}

std::size_t consumer_core::in_flight() const { return tracked_; }

bool consumer_core::source_paused() const {
  return std::any_of(book_.begin(), book_.end(), [&](const auto& entry) {
    return settings_.gated_topics.count(entry.first.topic) == 0 && pauses_.is_paused(entry.first);
  });
}

std::size_t consumer_core::room() const {
  const auto out = outstanding();
  return settings_.max_in_flight > out ? settings_.max_in_flight - out : 0;
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

std::optional<consumer_core::partition_view> consumer_core::view(const partition_id& p) const {
  auto it = book_.find(p);
  if (it == book_.end()) {
    return std::nullopt;
  }
  return partition_view{it->second.tracker.committable(), it->second.tracker.in_flight(),
                        pauses_.is_paused(p)};
}

std::vector<consumer_core::partition_status> consumer_core::statuses(std::int64_t now_ms) {
  std::vector<partition_status> out;
  out.reserve(accounts_.size());
  for (auto& [p, e] : book_) {
    partition_status s;
    s.id = p;
    s.assigned = true;
    s.reasons = pauses_.reasons(p);
    if (s.reasons.empty()) {
      e.paused_since_ms.reset();
    } else if (!e.paused_since_ms) {
      e.paused_since_ms = now_ms;
    }
    s.paused_since_ms = e.paused_since_ms;
    s.committable = e.tracker.committable();
    s.in_flight = e.tracker.in_flight();
    s.held_until_due = gate_.held_count(p);
    s.accounting = accounts_[p];
    if (const auto book = orders_.find(p); book != orders_.end()) {
      s.ordered = true;
      const auto& order = book->second.order;
      s.parked_keys = order.parked_keys();
      s.followers = order.followers();
      s.oldest_parked_since_ms = order.oldest_parked_since_ms();
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

consumer_core::intake consumer_core::hand_out(partition_entry& e, record r, std::int64_t now_ms) {
  // At its own bound, or behind what it holds there: held, not paused (a pause would drop
  // librdkafka's prefetch of it and a resume wait for a refetch). Behind records of it waiting
  // in the route's overflow, it waits there too: they go first.
  if (e.overflowed.empty() && (!e.over_bound.empty() || at_own_bound(e))) {
    e.over_bound.push_back(std::move(r));
    ++over_bound_;
    return intake::overflowed;
  }
  if (room() == 0 || !overflow_.empty()) {
    e.overflowed.push_back(r.offset);
    overflow_.push_back(std::move(r));
    return intake::overflowed;
  }
  return send_out(e, std::move(r), now_ms) ? intake::dispatched : intake::followed;
}

bool consumer_core::send_out(partition_entry& e, record r, std::int64_t now_ms) {
  if (const auto copy = e.ordered.find(r.offset); copy != e.ordered.end()) {
    auto& book = *copy->second;
    switch (book.second.order.admit({r.topic, r.partition, r.offset})) {
      case key_order::verdict::attempt:
        break;
      case key_order::verdict::follow: {
        auto at = r.position();
        followers_.emplace(std::move(at), std::move(r));
        update_ordering_pause(book);
        return false;
      }
      case key_order::verdict::dead_letter:
        ++e.handed_out;
        io_.dead_letter(std::move(r));
        return true;
    }
  }
  ++e.handed_out;
  if (settings_.max_in_flight_per_partition != 0) {
    e.sent_ms[r.offset] = now_ms;
  }
  io_.dispatch(std::move(r));
  return true;
}

std::vector<std::int64_t> consumer_core::later_of_key(const record_position& at) const {
  const auto it = book_.find(at.partition_of());
  if (it == book_.end()) {
    return {};
  }
  const auto copy = it->second.ordered.find(at.offset);
  if (copy == it->second.ordered.end()) {
    return {};
  }
  return copy->second->second.order.later_than(at);
}

void consumer_core::enter_ordered(partition_entry& e, const record& r, std::int64_t now_ms) {
  if (settings_.ordering.mode == ordering_mode::none || !r.key) {
    return;
  }
  // A book is kept for the partition's life (never erased), so only a partition of the source
  // topic gets one: courier writes a record's tier copy to the partition of its origin's number,
  // so a tier record of partition n whose courier.origin.* names the source's partition n takes
  // its origin's place in that book. Any other origin (another topic, another partition, a name
  // made up by whoever wrote the record) was not written by courier and gets no book of its own:
  // it goes unordered, as one whose origin cannot be read. Unordered is the safe side: it holds
  // no key of a genuine record back and allocates nothing, and a genuine record never has it.
  const bool from_tier = settings_.gated_topics.count(r.topic) != 0;
  if (!from_tier && r.topic != settings_.source_topic) {
    return;
  }
  const partition_id origin{settings_.source_topic, r.partition};
  std::int64_t origin_offset = r.offset;
  if (find_header(r.headers, origin_topic_header)) {
    try {
      if (const auto from = read_retry_state(r.headers).from) {
        if (from->topic == origin.topic && from->partition == origin.partition) {
          origin_offset = from->offset;
        } else if (from_tier) {
          return;
        }
        // A source record naming another origin is a record of its partition, at its offset.
      }
    } catch (const header_error&) {
      // Its headers were written by hand or by something else: no place in the order is known.
      // A tier record's due time says so (malformed_due); it goes unordered.
      return;
    }
  } else if (from_tier) {
    return;  // a tier record courier did not write: no place in the source's order
  }
  auto& book = book_of(origin);
  book.second.order.enter(*r.key, origin_offset, {r.topic, r.partition, r.offset}, now_ms);
  e.ordered.emplace(r.offset, &book);
  update_ordering_pause(book);
}

consumer_core::order_books::value_type& consumer_core::book_of(const partition_id& origin) {
  auto book = orders_.find(origin);
  if (book == orders_.end()) {
    book = orders_.emplace(origin, order_book{key_order{settings_.ordering, origin.topic}, false})
               .first;
  }
  return *book;
}

void consumer_core::finish_ordered(partition_entry& e, const partition_id& p, std::int64_t offset,
                                   delivery_end how, std::int64_t now_ms) {
  const auto copy = e.ordered.find(offset);
  if (copy == e.ordered.end()) {
    return;
  }
  auto& book = *copy->second;
  e.ordered.erase(copy);
  const auto released = book.second.order.finish({p.topic, p.partition, offset}, how, now_ms);
  update_ordering_pause(book);
  hand_out_released(released, now_ms);
}

void consumer_core::forget_ordered(const partition_id& p, partition_entry& e, std::int64_t now_ms) {
  std::set<partition_id> origins;
  for (const auto& [offset, book] : e.ordered) {
    origins.insert(book->first);
  }
  e.ordered.clear();
  for (const auto& origin : origins) {
    auto& book = *orders_.find(origin);
    book.second.order.drop_held(p);
    // Whoever holds them next finishes them: order by them is that owner's (the group's range
    // assignment gives it the source partition too).
    const auto released =
        book.second.order.finished_below(p, std::numeric_limits<std::int64_t>::max(), {}, now_ms);
    update_ordering_pause(book);
    hand_out_released(released, now_ms);
  }
}

void consumer_core::hand_out_released(const std::vector<key_order::release>& released,
                                      std::int64_t now_ms) {
  for (const auto& r : released) {
    auto held = followers_.find(r.at);
    if (held == followers_.end()) {
      continue;  // its partition was revoked meanwhile: its next owner has it
    }
    record rec = std::move(held->second);
    followers_.erase(held);
    const partition_id p = r.at.partition_of();
    auto& e = book_.at(p);
    (void)hand_out(e, std::move(rec), now_ms);
    update_backpressure(p, e);
    check_head(p, e, now_ms);
  }
}

void consumer_core::update_ordering_pause(order_books::value_type& book, bool force) {
  const bool over = book.second.order.over_bound();
  if ((over == book.second.over_bound && !force) || book_.count(book.first) == 0) {
    return;  // unchanged, or the source partition is not here: set at its assignment
  }
  book.second.over_bound = over;
  apply(pauses_.set(book.first, pause_reason::ordering, over));
}

bool consumer_core::at_own_bound(const partition_entry& e) const {
  const auto bound = settings_.max_in_flight_per_partition;
  return bound != 0 && e.handed_out >= bound;
}

void consumer_core::release_over_bound(partition_entry& e, std::int64_t now_ms) {
  while (!e.over_bound.empty() && !at_own_bound(e) && room() > 0) {
    auto r = std::move(e.over_bound.front());
    e.over_bound.pop_front();
    --over_bound_;
    send_out(e, std::move(r), now_ms);
  }
}

void consumer_core::note_finished(std::int64_t offset, partition_entry& e, std::int64_t now_ms) {
  const auto sent = e.sent_ms.find(offset);
  if (sent == e.sent_ms.end()) {
    return;
  }
  constexpr double weight = 0.1;  // of the newest record: the mean follows a change in tens
  const auto took = static_cast<double>(std::max<std::int64_t>(1, now_ms - sent->second));
  e.pool_ms = e.pool_ms ? (1 - weight) * *e.pool_ms + weight * took : took;
  e.sent_ms.erase(sent);
}

std::size_t consumer_core::large_hold(const partition_entry& e) const {
  std::size_t two_seconds = 0;
  if (e.pool_ms) {
    constexpr double seconds = 2.0;
    two_seconds = static_cast<std::size_t>(
        seconds * 1000.0 * static_cast<double>(settings_.max_in_flight_per_partition) / *e.pool_ms);
  }
  return std::max<std::size_t>({1, settings_.max_in_flight, two_seconds});
}

void consumer_core::apply(const partition_pauses::change& c) {
  if (!c.touched.empty()) {
    ++pause_changes_;
  }
  const auto of_source = [&](const partition_id& p) {
    return settings_.gated_topics.count(p.topic) == 0;
  };
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
void consumer_core::check_head(const partition_id& p, partition_entry& e, std::int64_t now_ms) {
  // A head still waiting for its due time in the gate, or for room in overflow, is not stuck: the
  // delivery pool does not have it yet, so it could not move it on (an expedite would find
  // nothing, and the head would count as reported), and the bound would be spent on it. The
  // guard sees it (and dates it) once it is handed out.
  if (!head_waiting(p, e)) {
    if (const auto head = e.head.check(e.tracker, now_ms)) {
      io_.expedite(p, *head);
    }
  }
  arm_wake(p, e);
}

bool consumer_core::head_waiting(const partition_id& p, const partition_entry& e) const {
  const auto head = e.tracker.head();
  if (!head) {
    return false;
  }
  if (!e.overflowed.empty() && e.overflowed.front() == *head) {
    return true;
  }
  if (!e.over_bound.empty() && e.over_bound.front().offset == *head) {
    return true;
  }
  if (followers_.count(record_position{p.topic, p.partition, *head}) != 0) {
    return true;  // it waits for its key, not for the delivery pool: nothing to move on
  }
  const auto held = gate_.first_held_offset(p);
  return held && held == head;
}

// One pending wake per partition at most, for the earlier of its gate's next due time and its
// head's age deadline: no timer per record.
void consumer_core::arm_wake(const partition_id& p, partition_entry& e) {
  std::optional<std::int64_t> at;
  if (auto due = gate_.next_due(p)) {
    at = *due + 1;
  }
  if (auto deadline = e.head.age_deadline_ms(); deadline && !head_waiting(p, e)) {
    at = at ? std::min(*at, *deadline) : *deadline;
  }
  if (!at || (e.wake_armed_ms && *e.wake_armed_ms <= *at)) {
    return;
  }
  e.wake_armed_ms = at;
  io_.wake_at(p, *at);
}

// Backpressure per partition, with hysteresis: a partition at its own bound holds what it
// fetched beyond it, and is paused only once that hold is large: the route's max_in_flight, or
// two seconds of what it delivers at its bound (its bound over the mean time its records spend
// with the delivery pool) if more. It is resumed when the hold is down to half, so what
// is left covers the second or so librdkafka takes to fetch a resumed partition again. Without
// a bound of its own (the default) a partition is never paused for backpressure.
void consumer_core::update_backpressure(const partition_id& p, const partition_entry& e) {
  if (settings_.max_in_flight_per_partition == 0) {
    return;
  }
  const auto large = large_hold(e);
  if (e.over_bound.size() >= large) {
    const auto c = pauses_.set(p, pause_reason::backpressure, true);
    if (!c.touched.empty()) {
      ++counts_[consumer_counter::backpressure_pauses];
    }
    apply(c);
  } else if (e.over_bound.size() <= large / 2) {
    apply(pauses_.set(p, pause_reason::backpressure, false));
  }
}

}  // namespace courier
