#include "core/model/route_topics.hpp"

#include <algorithm>
#include <cstddef>

namespace courier {

std::vector<std::string> route_topics::consumed() const {
  std::vector<std::string> out{source};
  for (const auto& t : tiers) {
    out.push_back(t.topic);
  }
  return out;
}

std::vector<std::string> route_topics::onward() const {
  std::vector<std::string> out;
  for (const auto& t : tiers) {
    out.push_back(t.topic);
  }
  out.push_back(dlq);
  if (!receipts.empty()) {
    out.push_back(receipts);
  }
  return out;
}

std::vector<std::string> route_topics::all() const {
  auto out = consumed();
  out.push_back(dlq);
  if (!receipts.empty()) {
    out.push_back(receipts);
  }
  return out;
}

int route_topics::tier_index(std::string_view topic) const {
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    if (tiers[i].topic == topic) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

std::chrono::milliseconds route_topics::longest_delay() const {
  std::chrono::milliseconds longest{0};
  for (const auto& t : tiers) {
    longest = std::max(longest, t.delay);
  }
  return longest;
}

}  // namespace courier
