#include "core/retry/retry_tiers.hpp"

#include <cstddef>

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

destination next_destination(int current_tier, bool permanent,
                             const std::vector<std::chrono::milliseconds>& tiers,
                             std::string_view source_topic, std::string_view dlq_topic) {
  const int next = (current_tier < -1 ? -1 : current_tier) + 1;
  if (permanent || static_cast<std::size_t>(next) >= tiers.size()) {
    return destination{destination::kind::dlq, -1, std::string{dlq_topic},
                       std::chrono::milliseconds{0}};
  }
  const auto delay = tiers[static_cast<std::size_t>(next)];
  return destination{destination::kind::tier, next, tier_topic(source_topic, delay), delay};
}

}  // namespace courier
