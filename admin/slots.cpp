#include "admin/slots.hpp"

#include <stdexcept>

namespace courier::admin {

admin_slots::admin_slots(admin_slot_limits limits) : limits_(limits) {
  if (limits_.total == 0 || limits_.per_peer == 0) {
    throw std::invalid_argument("admin_slot_limits: total and per_peer must be at least 1");
  }
}

admission admin_slots::admit(const std::string& peer) {
  if (open_from(peer) >= limits_.per_peer) {
    const auto victim = oldest_idle(&peer);
    if (!victim) {
      ++counts_.refused_peer_busy;
      return {admission::verdict::peer_busy, 0, std::nullopt};
    }
    return take(peer, victim);
  }
  if (slots_.size() >= limits_.total) {
    const auto victim = oldest_idle(nullptr);
    if (!victim) {
      ++counts_.refused_all_busy;
      return {admission::verdict::all_busy, 0, std::nullopt};
    }
    return take(peer, victim);
  }
  return take(peer, std::nullopt);
}

admission admin_slots::take(const std::string& peer, std::optional<admin_slot_id> evicted) {
  if (evicted) {
    release(*evicted);
    ++counts_.evicted;
  }
  const admin_slot_id id = next_slot_++;
  slots_.emplace(id, held{peer, /*idle=*/false, 0});
  ++per_peer_[peer];
  ++counts_.admitted;
  return {admission::verdict::admitted, id, evicted};
}

void admin_slots::idle(admin_slot_id slot) {
  const auto it = slots_.find(slot);
  if (it == slots_.end()) {
    return;
  }
  it->second.idle = true;
  it->second.idle_since = ++tick_;
}

void admin_slots::busy(admin_slot_id slot) {
  const auto it = slots_.find(slot);
  if (it == slots_.end()) {
    return;
  }
  it->second.idle = false;
}

void admin_slots::release(admin_slot_id slot) {
  const auto it = slots_.find(slot);
  if (it == slots_.end()) {
    return;
  }
  const auto peer = per_peer_.find(it->second.peer);
  if (peer != per_peer_.end() && --peer->second == 0) {
    per_peer_.erase(peer);
  }
  slots_.erase(it);
}

std::size_t admin_slots::open_from(const std::string& peer) const {
  const auto it = per_peer_.find(peer);
  return it == per_peer_.end() ? 0 : it->second;
}

bool admin_slots::is_idle(admin_slot_id slot) const {
  const auto it = slots_.find(slot);
  return it != slots_.end() && it->second.idle;
}

std::optional<admin_slot_id> admin_slots::oldest_idle(const std::string* peer) const {
  std::optional<admin_slot_id> oldest;
  std::uint64_t since = 0;
  for (const auto& [id, s] : slots_) {
    if (!s.idle || (peer != nullptr && s.peer != *peer)) {
      continue;
    }
    if (!oldest || s.idle_since < since) {
      oldest = id;
      since = s.idle_since;
    }
  }
  return oldest;
}

}  // namespace courier::admin
