#include "core/delivery/pending_deliveries.hpp"

#include <algorithm>
#include <functional>

#include "core/model/idempotency_key.hpp"

namespace courier {

bool pending_delivery::in_backoff() const {
  return phase == delivery_phase::backing_off || phase == delivery_phase::waiting_budget;
}

bool pending_delivery::moving_on() const {
  return phase == delivery_phase::writing_receipt || phase == delivery_phase::moving_to_tier ||
         phase == delivery_phase::dead_lettering;
}

bool pending_deliveries::coordinates::operator==(const coordinates& other) const {
  return offset == other.offset && partition == other.partition && topic == other.topic;
}

std::size_t pending_deliveries::coordinates_hash::operator()(const coordinates& c) const {
  std::size_t h = std::hash<std::string_view>{}(c.topic);
  h ^= std::hash<std::int64_t>{}(c.offset) + 0x9e3779b97f4a7c15ULL + (h << 6U) + (h >> 2U);
  h ^= std::hash<std::int32_t>{}(c.partition) + 0x9e3779b97f4a7c15ULL + (h << 6U) + (h >> 2U);
  return h;
}

std::pair<delivery_id, pending_delivery&> pending_deliveries::take(record r) {
  const delivery_id id{next_id_++};
  pending_delivery d;
  d.idempotency_key = idempotency_key_for(r);
  d.rec = std::move(r);
  pending_delivery& taken = by_id_.emplace(id, std::move(d)).first->second;
  const coordinates at{taken.rec.topic, taken.rec.partition, taken.rec.offset};
  // A record handed in twice: the index names the newest delivery, and its key must view that
  // delivery's topic, not the older one's (insert_or_assign would keep the old key).
  by_coordinates_.erase(at);
  by_coordinates_.emplace(at, id);
  return {id, taken};
}

pending_delivery* pending_deliveries::find(delivery_id id) {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &it->second;
}

const pending_delivery* pending_deliveries::find(delivery_id id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &it->second;
}

std::optional<delivery_id> pending_deliveries::id_at(const record_position& at) const {
  const auto found = by_coordinates_.find(coordinates{at.topic, at.partition, at.offset});
  if (found == by_coordinates_.end()) {
    return std::nullopt;
  }
  return found->second;
}

std::vector<delivery_id> pending_deliveries::backing_off() const {
  std::vector<delivery_id> out;
  for (const auto& [id, d] : by_id_) {
    if (d.in_backoff()) {
      out.push_back(id);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void pending_deliveries::forget(delivery_id id) {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) {
    return;
  }
  const auto& r = it->second.rec;
  const auto at = by_coordinates_.find(coordinates{r.topic, r.partition, r.offset});
  // The index names the newest delivery of a record that was handed in twice.
  if (at != by_coordinates_.end() && at->second == id) {
    by_coordinates_.erase(at);
  }
  by_id_.erase(it);
}

}  // namespace courier
