#include "core/flow/partition_pauses.hpp"

namespace courier {

std::string to_string(pause_reason r) {
  switch (r) {
    case pause_reason::breaker:
      return "breaker";
    case pause_reason::backpressure:
      return "backpressure";
    case pause_reason::retry_due:
      return "retry_due";
    case pause_reason::shutdown:
      return "shutdown";
    case pause_reason::produce_blocked:
      return "produce_blocked";
    case pause_reason::operator_request:
      return "operator";
    case pause_reason::ordering:
      return "ordering";
  }
  return "unknown";
}

void partition_pauses::flip_if_needed(const partition_id& p, change& c) {
  const auto it = reasons_.find(p);
  const bool want = it != reasons_.end() && !it->second.empty();
  const bool is = paused_.count(p) > 0;
  if (want && !is) {
    paused_.insert(p);
    c.pause.push_back(p);
  } else if (!want && is) {
    paused_.erase(p);
    c.resume.push_back(p);
  }
}

partition_pauses::change partition_pauses::assign(const partition_id& p) {
  change c;
  reasons_[p] = route_wide_;
  if (!route_wide_.empty()) {
    c.touched.push_back(p);
  }
  flip_if_needed(p, c);
  return c;
}

void partition_pauses::revoke(const partition_id& p) {
  reasons_.erase(p);
  paused_.erase(p);
}

partition_pauses::change partition_pauses::set(const partition_id& p, pause_reason r, bool on) {
  change c;
  auto it = reasons_.find(p);
  if (it == reasons_.end()) {
    return c;
  }
  const bool changed = on ? it->second.insert(r).second : it->second.erase(r) > 0;
  if (changed) {
    c.touched.push_back(p);
  }
  flip_if_needed(p, c);
  return c;
}

partition_pauses::change partition_pauses::set_everywhere(pause_reason r, bool on) {
  if (on) {
    route_wide_.insert(r);
  } else {
    route_wide_.erase(r);
  }
  change all;
  for (const auto& [p, rs] : reasons_) {
    auto one = set(p, r, on);
    all.pause.insert(all.pause.end(), one.pause.begin(), one.pause.end());
    all.resume.insert(all.resume.end(), one.resume.begin(), one.resume.end());
    all.touched.insert(all.touched.end(), one.touched.begin(), one.touched.end());
  }
  return all;
}

std::vector<pause_reason> partition_pauses::reasons(const partition_id& p) const {
  auto it = reasons_.find(p);
  if (it == reasons_.end()) {
    return {};
  }
  return {it->second.begin(), it->second.end()};
}

bool partition_pauses::is_paused(const partition_id& p) const { return paused_.count(p) > 0; }

std::size_t partition_pauses::paused_count() const { return paused_.size(); }

}  // namespace courier
