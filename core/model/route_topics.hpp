#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace courier {

// One retry tier of a route: its topic and how long a record waits in it.
struct retry_tier {
  std::string topic;  // "<source>.retry-<delay>"
  std::chrono::milliseconds delay{0};
};

// Every topic of one route, named once (core/retry/retry_tiers.hpp: route_topics_named): where
// its records come from, the retry tiers they wait in, in order, and the DLQ. Preflight, `topics
// ensure`, the pipeline, the attempt policy, the demo and the bench all read a route's topics here.
struct route_topics {
  std::string source;
  std::vector<retry_tier> tiers;
  std::string dlq;
  // routes[].receipts_topic: a delivered record's receipt (empty: none are written).
  std::string receipts;

  // What the route's consumer subscribes to: the source, then each tier in order.
  [[nodiscard]] std::vector<std::string> consumed() const;
  // What courier produces to: each tier in order, the DLQ, then the receipts topic if any.
  [[nodiscard]] std::vector<std::string> onward() const;
  // The source, the tiers, the DLQ, the receipts topic if any.
  [[nodiscard]] std::vector<std::string> all() const;
  // The 0-based index of `topic` among the tiers; -1 when it is not one (the source).
  [[nodiscard]] int tier_index(std::string_view topic) const;
  // The longest tier delay (zero without tiers).
  [[nodiscard]] std::chrono::milliseconds longest_delay() const;
};

}  // namespace courier
