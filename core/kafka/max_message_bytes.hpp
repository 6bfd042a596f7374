#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "core/kafka/cluster.hpp"

namespace courier::kafka {

// The effective max.message.bytes of `topic` (its override, else the broker's default), as
// DescribeConfigs reports it. Throws kafka_error naming the topic when the broker cannot tell
// (no DescribeConfigs rights, an old broker, librdkafka's mock cluster) or reports no size.
std::int64_t max_message_bytes(const cluster& at, const std::string& topic,
                               std::chrono::milliseconds timeout);

}  // namespace courier::kafka
