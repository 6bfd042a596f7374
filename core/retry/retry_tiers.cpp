#include "core/retry/retry_tiers.hpp"

#include <cstddef>
#include <utility>

#include "core/time/duration.hpp"

namespace courier {
namespace {

bool all_digits(std::string_view s) {
  for (char c : s) {
    if (c < '0' || c > '9') {
      return false;
    }
  }
  return !s.empty();
}

}  // namespace

std::string tier_topic(std::string_view source_topic, std::chrono::milliseconds delay) {
  std::string topic{source_topic};
  topic += ".retry-";
  topic += format_duration(delay);
  return topic;
}

std::string default_dlq_topic(std::string_view source_topic) {
  std::string_view base = source_topic;
  const std::size_t dot = base.rfind(".v");
  // Only a whole last segment "v<digits>" with something before it is a version suffix.
  if (dot != std::string_view::npos && dot > 0 && all_digits(base.substr(dot + 2))) {
    base = base.substr(0, dot);
  }
  std::string topic{base};
  topic += ".dlq";
  return topic;
}

route_topics route_topics_named(std::string source,
                                const std::vector<std::chrono::milliseconds>& delays,
                                std::string dlq) {
  route_topics t;
  for (const auto delay : delays) {
    t.tiers.push_back(retry_tier{tier_topic(source, delay), delay});
  }
  t.dlq = dlq.empty() ? default_dlq_topic(source) : std::move(dlq);
  t.source = std::move(source);
  return t;
}

destination next_destination(int current_tier, bool permanent, const route_topics& topics) {
  const int next = (current_tier < -1 ? -1 : current_tier) + 1;
  if (permanent || static_cast<std::size_t>(next) >= topics.tiers.size()) {
    return destination{destination::kind::dlq, -1, topics.dlq, std::chrono::milliseconds{0}};
  }
  const auto& tier = topics.tiers[static_cast<std::size_t>(next)];
  return destination{destination::kind::tier, next, tier.topic, tier.delay};
}

}  // namespace courier
