#include "core/kafka/commit_hold.hpp"

#include <array>

namespace courier::kafka {

std::optional<std::string_view> join_state_entered(std::string_view line) {
  constexpr std::string_view marker = "changed join state ";
  const auto at = line.find(marker);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  constexpr std::string_view arrow = " -> ";
  const auto to = line.find(arrow, at + marker.size());
  if (to == std::string_view::npos) {
    return std::nullopt;
  }
  const auto begin = to + arrow.size();
  const auto end = line.find(' ', begin);
  const auto state = line.substr(begin, end == std::string_view::npos ? end : end - begin);
  if (state.empty()) {
    return std::nullopt;
  }
  return state;
}

bool join_in_flight(std::string_view join_state) {
  constexpr std::array<std::string_view, 3> joining{"wait-join", "wait-metadata", "wait-sync"};
  for (const auto s : joining) {
    if (join_state == s) {
      return true;
    }
  }
  return false;
}

void commit_hold::hold(const std::vector<offset_commit>& offsets) {
  for (const auto& c : offsets) {
    held_.insert_or_assign(c.partition, c);
  }
}

std::vector<offset_commit> commit_hold::release_with(const std::vector<offset_commit>& offsets) {
  for (const auto& c : offsets) {
    held_.erase(c.partition);
  }
  std::vector<offset_commit> out = offsets;
  for (auto& [p, c] : held_) {
    out.push_back(std::move(c));
  }
  held_.clear();
  return out;
}

void commit_hold::forget(const std::vector<partition_id>& ps) {
  for (const auto& p : ps) {
    held_.erase(p);
  }
}

}  // namespace courier::kafka
