#include "core/flow/key_order.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace courier {

key_order::key_order(key_ordering s, std::string source_topic)
    : settings_(s), source_topic_(std::move(source_topic)) {}

bool key_order::in_tier(const record_position& at) const { return at.topic != source_topic_; }

void key_order::enter(const std::string& key, std::int64_t origin, const record_position& at,
                      std::int64_t now_ms) {
  if (origin_of_.count(at) != 0) {
    return;
  }
  auto [it, fresh] = records_.try_emplace(origin);
  pending_record& r = it->second;
  if (fresh) {
    r.key = key;
  }
  key_book& k = keys_[r.key];
  k.pending.insert(origin);
  origin_of_.emplace(at, origin);
  r.copies.insert(at);
  if (in_tier(at)) {
    ++k.in_tiers;
  }
  if (r.in_transit) {
    r.in_transit = false;
    --k.in_tiers;
  }
  settle(r.key, now_ms);
}

key_order::verdict key_order::admit(const record_position& at) {
  const auto found = origin_of_.find(at);
  if (found == origin_of_.end()) {
    return verdict::attempt;
  }
  const std::int64_t origin = found->second;
  pending_record& r = records_.at(origin);
  if (r.held.count(at) != 0) {
    return verdict::follow;
  }
  key_book& k = keys_.at(r.key);
  if (*k.pending.begin() < origin) {
    r.held.insert(at);
    set_held(k, k.held + 1);
    ++followers_;
    return verdict::follow;
  }
  return dead_parked_.count(r.key) != 0 ? verdict::dead_letter : verdict::attempt;
}

std::vector<key_order::release> key_order::finish(const record_position& at, delivery_end how,
                                                  std::int64_t now_ms) {
  std::vector<release> out;
  const auto found = origin_of_.find(at);
  if (found == origin_of_.end()) {
    return out;
  }
  pending_record& r = records_.at(found->second);
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
  std::vector<record_position> finished;
  const record_position first{place.topic, place.partition,
                              std::numeric_limits<std::int64_t>::min()};
  for (auto it = origin_of_.lower_bound(first);
       it != origin_of_.end() && it->first.partition_of() == place; ++it) {
    if (it->first.offset < committed || done.count(it->first.offset) != 0) {
      finished.push_back(it->first);
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
  const record_position first{place.topic, place.partition,
                              std::numeric_limits<std::int64_t>::min()};
  for (auto it = origin_of_.lower_bound(first);
       it != origin_of_.end() && it->first.partition_of() == place; ++it) {
    pending_record& r = records_.at(it->second);
    if (r.held.erase(it->first) != 0) {
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
    out.assign(k->second.pending.upper_bound(origin), k->second.pending.end());
  }
  return out;
}

std::vector<std::int64_t> key_order::later_than(const record_position& at) const {
  const auto found = origin_of_.find(at);
  if (found == origin_of_.end()) {
    return {};
  }
  return later_than(records_.at(found->second).key, found->second);
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

void key_order::remove_copy(const record_position& at, ending how, std::vector<release>& out) {
  const auto found = origin_of_.find(at);
  const std::int64_t origin = found->second;
  origin_of_.erase(found);
  pending_record& r = records_.at(origin);
  key_book& k = keys_.at(r.key);
  r.copies.erase(at);
  if (in_tier(at)) {
    --k.in_tiers;
  }
  if (r.held.erase(at) != 0) {
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
    if (r.held.erase(other) != 0) {
      set_held(k, k.held - 1);
      --followers_;
      out.push_back(release{other, verdict::attempt});
    }
  }
  if (r.in_transit) {
    --k.in_tiers;
  }
  const std::string key = r.key;
  records_.erase(origin);
  k.pending.erase(origin);
  release_head(key, out);
}

void key_order::release_head(const std::string& key, std::vector<release>& out) {
  key_book& k = keys_.at(key);
  if (k.pending.empty()) {
    return;
  }
  pending_record& head = records_.at(*k.pending.begin());
  const verdict what = dead_parked_.count(key) != 0 ? verdict::dead_letter : verdict::attempt;
  for (const auto& at : head.held) {
    out.push_back(release{at, what});
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
