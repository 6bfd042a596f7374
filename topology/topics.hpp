#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/config/config.hpp"

namespace courier::topology {

// The route's source topic first, then its retry tiers in order.
std::vector<std::string> route_topics_to_consume(const route_config& route);

// The DLQ topic of a route (configured, or derived from its source topic).
std::string dlq_topic_of(const route_config& route);

// Every topic the configuration needs: each route's source, tiers and DLQ.
std::vector<std::string> required_topics(const courier_config& cfg);

// The required topics the broker does not have.
std::vector<std::string> missing_topics(const courier_config& cfg,
                                        std::chrono::milliseconds timeout);

// `courier topics ensure`: creates every missing tier and DLQ topic with its source's partition
// count; a missing source topic is created with `source_partitions`. Returns the topics created.
std::vector<std::string> ensure_topics(const courier_config& cfg, int source_partitions,
                                       std::chrono::milliseconds timeout);

}  // namespace courier::topology
