#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/route_topics.hpp"

namespace courier {

// "<source>.retry-<delay>", the delay as format_duration writes it: "orders.retry-5s".
std::string tier_topic(std::string_view source_topic, std::chrono::milliseconds delay);

// The source without a trailing ".v<digits>" version suffix, plus ".dlq":
// "brew.shipments.v1" -> "brew.shipments.dlq", "orders" -> "orders.dlq". One DLQ serves
// every version of a topic.
std::string default_dlq_topic(std::string_view source_topic);

// A route's topics: `source`, a tier per delay (tier_topic), and `dlq`, or
// default_dlq_topic(source) when `dlq` is empty.
route_topics route_topics_named(std::string source,
                                const std::vector<std::chrono::milliseconds>& delays,
                                std::string dlq);

// Where a record that failed goes next.
struct destination {
  // receipt: a delivered record's receipt (routes[].receipts_topic), through the same producer.
  enum class kind { tier, dlq, receipt };
  kind what = kind::dlq;
  int tier_index = -1;  // 0-based index into the tier delays; -1 for the DLQ and receipts
  std::string topic;
  std::chrono::milliseconds delay{0};  // zero for the DLQ
};

// A permanent failure goes to the DLQ; otherwise tier `current_tier + 1` if there is one,
// else the DLQ. `current_tier` is -1 for a record read from the source topic.
destination next_destination(int current_tier, bool permanent, const route_topics& topics);

}  // namespace courier
