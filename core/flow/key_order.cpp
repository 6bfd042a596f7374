#include "core/flow/key_order.hpp"

#include <algorithm>
#include <utility>

namespace courier {
namespace {

// Removes `at` from a short list; whether it was there.
template <typename Copy>
bool erase_one(std::vector<Copy>& list, const Copy& at) {
  const auto it = std::find(list.begin(), list.end(), at);
  if (it == list.end()) {
    return false;
  }
  list.erase(it);
  return true;
}

}  // namespace

key_order::key_order(key_ordering s, std::string source_topic)
    : settings_(s), source_topic_(std::move(source_topic)) {}

std::optional<std::uint32_t> key_order::find_place(std::string_view topic,
                                                   std::int32_t partition) const {
  // A handful of places (the source partition and the tier partitions its records visit):
  // the partition number rules out most before a topic is compared.
  for (std::uint32_t i = 0; i < places_.size(); ++i) {
    if (places_[i].id.partition == partition && places_[i].id.topic == topic) {
      return i;
    }
  }
  return std::nullopt;
}

std::optional<key_order::copy_at> key_order::find_copy(copy_ref at) const {
  const auto where = find_place(at.topic, at.partition);
  if (!where) {
    return std::nullopt;
  }
  const copy_at c{*where, at.offset};
  if (origin_of_.count(c) == 0) {
    return std::nullopt;
  }
  return c;
}

record_position key_order::position_of(const copy_at& c) const {
  const auto& id = places_[c.place].id;
  return record_position{id.topic, id.partition, c.offset};
}

std::vector<key_order::copy_at> key_order::copies_in(const partition_id& where) const {
  std::vector<copy_at> out;
  const auto index = find_place(where.topic, where.partition);
  if (!index) {
    return out;
  }
  for (const auto& entry : origin_of_) {
    if (entry.first.place == *index) {
      out.push_back(entry.first);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const copy_at& a, const copy_at& b) { return a.offset < b.offset; });
  return out;
}

void key_order::enter(const std::string& key, std::int64_t origin, copy_ref ref,
                      std::int64_t now_ms) {
  auto where = find_place(ref.topic, ref.partition);
  if (!where) {
    where = static_cast<std::uint32_t>(places_.size());
    places_.push_back(place_info{partition_id{std::string{ref.topic}, ref.partition},
                                 ref.topic != source_topic_});
  }
  const copy_at at{*where, ref.offset};
  if (origin_of_.count(at) != 0) {
    return;
  }
  auto [it, fresh] = records_.try_emplace(origin);
  pending_record& r = it->second;
  if (fresh) {
    r.key = key;
  }
  key_book& k = keys_[r.key];
  if (fresh) {
    k.pending.insert(std::upper_bound(k.pending.begin(), k.pending.end(), origin), origin);
    if (!parked_by_commit_.empty() && parked_by_commit_.contains(origin)) {
      dead_parked_.insert(r.key);
      parked_by_commit_.remove(origin);
    }
  }
  origin_of_.emplace(at, origin);
  r.copies.push_back(at);
  if (in_tier(at)) {
    ++k.in_tiers;
  }
  if (r.in_transit) {
    r.in_transit = false;
    --k.in_tiers;
  }
  settle(r.key, now_ms);
}

key_order::verdict key_order::admit(copy_ref ref) {
  const auto c = find_copy(ref);
  if (!c) {
    return verdict::attempt;
  }
  const copy_at at = *c;
  const std::int64_t origin = origin_of_.at(at);
  pending_record& r = records_.at(origin);
  if (std::find(r.held.begin(), r.held.end(), at) != r.held.end()) {
    return verdict::follow;
  }
  key_book& k = keys_.at(r.key);
  if (k.pending.front() < origin) {
    r.held.push_back(at);
    set_held(k, k.held + 1);
    ++followers_;
    return verdict::follow;
  }
  return dead_parked_.count(r.key) != 0 ? verdict::dead_letter : verdict::attempt;
}

std::vector<key_order::release> key_order::finish(copy_ref ref, delivery_end how,
                                                  std::int64_t now_ms) {
  std::vector<release> out;
  const auto c = find_copy(ref);
  if (!c) {
    return out;
  }
  const copy_at at = *c;
  pending_record& r = records_.at(origin_of_.at(at));
  const std::string key = r.key;
  ending e = ending::delivered;
  switch (how) {
    case delivery_end::retried:
      e = ending::moved;
      if (!r.in_transit) {
        r.in_transit = true;
        ++keys_.at(key).in_tiers;
      }
      break;
    case delivery_end::delivered:
    case delivery_end::filtered:  // nothing to deliver: the key's next may go
      e = ending::delivered;
      break;
    case delivery_end::dead_lettered:
      e = ending::dead_lettered;
      break;
  }
  remove_copy(at, e, out);
  settle(key, now_ms);
  return out;
}

std::vector<key_order::release> key_order::finished_below(const partition_id& place,
                                                          std::int64_t committed,
                                                          const std::set<std::int64_t>& done,
                                                          std::int64_t now_ms) {
  std::vector<copy_at> finished;
  for (const auto& at : copies_in(place)) {
    if (at.offset < committed || done.count(at.offset) != 0) {
      finished.push_back(at);
    }
  }
  std::vector<release> out;
  std::set<std::string> touched;
  for (const auto& at : finished) {
    const auto found = origin_of_.find(at);
    if (found == origin_of_.end()) {
      continue;  // finished with its record by an earlier one
    }
    touched.insert(records_.at(found->second).key);
    // How it ended there is not in the view: a record that moved on has its next copy entered
    // (the caller's reading order), so only a delivered or dead-lettered one is left with none.
    remove_copy(at, ending::left, out);
  }
  for (const auto& key : touched) {
    settle(key, now_ms);
  }
  return out;
}

void key_order::drop_held(const partition_id& place) {
  for (const auto& at : copies_in(place)) {
    pending_record& r = records_.at(origin_of_.at(at));
    if (erase_one(r.held, at)) {
      key_book& k = keys_.at(r.key);
      set_held(k, k.held - 1);
      --followers_;
    }
  }
}

std::vector<std::int64_t> key_order::later_than(const std::string& key, std::int64_t origin) const {
  std::vector<std::int64_t> out;
  const auto k = keys_.find(key);
  if (k != keys_.end()) {
    const auto& pending = k->second.pending;
    out.assign(std::upper_bound(pending.begin(), pending.end(), origin), pending.end());
  }
  return out;
}

std::vector<std::int64_t> key_order::later_than(copy_ref ref) const {
  const auto c = find_copy(ref);
  if (!c) {
    return {};
  }
  const std::int64_t origin = origin_of_.at(*c);
  return later_than(records_.at(origin).key, origin);
}

done_offsets key_order::dead_parked_origins() const {
  done_offsets out;
  for (const auto& key : dead_parked_) {
    const auto k = keys_.find(key);
    if (k == keys_.end()) {
      continue;
    }
    for (const auto origin : k->second.pending) {
      out.add(origin, origin + 1);
    }
  }
  // Named by the commit and not fetched again yet: still behind their DLQ record.
  for (const auto& [begin, end] : parked_by_commit_.runs()) {
    out.add(begin, end);
  }
  return out;
}

void key_order::park_behind_dead_letter(done_offsets origins) {
  parked_by_commit_ = std::move(origins);
}

std::size_t key_order::parked_keys() const {
  std::size_t n = parked_.size();
  for (const auto& key : dead_parked_) {
    n += parked_.count(key) == 0 ? 1 : 0;
  }
  return n;
}

std::optional<std::int64_t> key_order::oldest_parked_since_ms() const {
  std::optional<std::int64_t> oldest;
  for (const auto& [key, since] : parked_) {
    if (!oldest || since < *oldest) {
      oldest = since;
    }
  }
  return oldest;
}

bool key_order::over_bound() const {
  return parked_keys() >= settings_.max_parked_keys || keys_over_followers_ != 0;
}

void key_order::remove_copy(const copy_at& at, ending how, std::vector<release>& out) {
  const auto found = origin_of_.find(at);
  const std::int64_t origin = found->second;
  origin_of_.erase(found);
  pending_record& r = records_.at(origin);
  key_book& k = keys_.at(r.key);
  (void)erase_one(r.copies, at);
  if (in_tier(at)) {
    --k.in_tiers;
  }
  if (erase_one(r.held, at)) {
    set_held(k, k.held - 1);
    --followers_;
  }
  bool for_good = false;
  switch (how) {
    case ending::delivered:
      // Delivered once is delivered: another copy (a redelivery after a crash) only repeats it.
      for_good = true;
      break;
    case ending::dead_lettered:
      for_good = true;
      if (settings_.on_dead_letter == dead_letter_followers::park) {
        dead_parked_.insert(r.key);
      }
      break;
    case ending::moved:
      for_good = false;
      break;
    case ending::left:
      for_good = r.copies.empty() && !r.in_transit;
      break;
  }
  if (!for_good) {
    return;
  }
  // Its other copies (duplicates of it) go too; a held one is released, to repeat the delivery.
  for (const auto& other : r.copies) {
    origin_of_.erase(other);
    if (in_tier(other)) {
      --k.in_tiers;
    }
    if (erase_one(r.held, other)) {
      set_held(k, k.held - 1);
      --followers_;
      out.push_back(release{position_of(other), verdict::attempt});
    }
  }
  if (r.in_transit) {
    --k.in_tiers;
  }
  const std::string key = r.key;
  records_.erase(origin);
  k.pending.erase(std::lower_bound(k.pending.begin(), k.pending.end(), origin));
  release_head(key, out);
}

void key_order::release_head(const std::string& key, std::vector<release>& out) {
  key_book& k = keys_.at(key);
  if (k.pending.empty()) {
    return;
  }
  pending_record& head = records_.at(k.pending.front());
  const verdict what = dead_parked_.count(key) != 0 ? verdict::dead_letter : verdict::attempt;
  for (const auto& at : head.held) {
    out.push_back(release{position_of(at), what});
    --followers_;
  }
  set_held(k, k.held - head.held.size());
  head.held.clear();
}

void key_order::set_held(key_book& k, std::size_t held) {
  const bool was_over = k.held >= settings_.max_followers;
  const bool is_over = held >= settings_.max_followers;
  k.held = held;
  if (was_over && !is_over) {
    --keys_over_followers_;
  } else if (!was_over && is_over) {
    ++keys_over_followers_;
  }
}

void key_order::settle(const std::string& key, std::int64_t now_ms) {
  const auto it = keys_.find(key);
  if (it == keys_.end()) {
    parked_.erase(key);
    return;
  }
  if (it->second.in_tiers > 0) {
    parked_.try_emplace(key, now_ms);
  } else {
    parked_.erase(key);
  }
  if (it->second.pending.empty()) {
    // A park ends with the last record of its chain: the key's next record is attempted.
    dead_parked_.erase(key);
    keys_.erase(it);
  }
}

}  // namespace courier
