#include "core/flow/due_gate.hpp"

#include <string>

#include "core/retry/retry_headers.hpp"

namespace courier {

due_reading read_due(const record& r, std::int64_t now_ms,
                     std::chrono::milliseconds longest_retry_delay) {
  due_reading out;
  try {
    out.due_ms = read_retry_state(r.headers).due_ms.value_or(0);
  } catch (const header_error& err) {
    out.malformed = err.what();
  }
  const auto latest_due = now_ms + (longest_retry_delay + due_skew_allowance).count();
  if (out.due_ms > latest_due) {
    out.malformed = "due time " + std::to_string(out.due_ms) +
                    " is more than the longest retry delay and " +
                    std::to_string(due_skew_allowance.count() / 1000) + " s after now (" +
                    std::to_string(now_ms) + ")";
    out.due_ms = 0;
  }
  return out;
}

std::optional<record> due_gate::admit(record r, std::int64_t due_ms, std::int64_t now_ms) {
  const partition_id p{r.topic, r.partition};
  auto it = held_.find(p);
  const bool queue_waiting = it != held_.end() && !it->second.empty();
  if (!queue_waiting && due_ms <= now_ms) {
    return r;
  }
  held_[p].push_back(held{std::move(r), due_ms});
  ++size_;
  return std::nullopt;
}

std::vector<record> due_gate::release(const partition_id& p, std::int64_t now_ms) {
  std::vector<record> out;
  auto it = held_.find(p);
  if (it == held_.end()) {
    return out;
  }
  auto& q = it->second;
  while (!q.empty() && q.front().due_ms <= now_ms) {
    out.push_back(std::move(q.front().rec));
    q.pop_front();
    --size_;
  }
  if (q.empty()) {
    held_.erase(it);
  }
  return out;
}

std::optional<std::int64_t> due_gate::next_due(const partition_id& p) const {
  auto it = held_.find(p);
  if (it == held_.end() || it->second.empty()) {
    return std::nullopt;
  }
  return it->second.front().due_ms;
}

bool due_gate::holds(const partition_id& p) const { return next_due(p).has_value(); }

std::optional<std::int64_t> due_gate::first_held_offset(const partition_id& p) const {
  auto it = held_.find(p);
  if (it == held_.end() || it->second.empty()) {
    return std::nullopt;
  }
  return it->second.front().rec.offset;
}

std::size_t due_gate::size() const { return size_; }

std::vector<std::int64_t> due_gate::drop(const partition_id& p) {
  std::vector<std::int64_t> offsets;
  auto it = held_.find(p);
  if (it == held_.end()) {
    return offsets;
  }
  offsets.reserve(it->second.size());
  for (const auto& h : it->second) {
    offsets.push_back(h.rec.offset);
  }
  size_ -= it->second.size();
  held_.erase(it);
  return offsets;
}

std::size_t due_gate::held_count(const partition_id& p) const {
  const auto it = held_.find(p);
  return it == held_.end() ? 0 : it->second.size();
}

}  // namespace courier
