#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/model/record.hpp"

namespace courier::demo {

// Reads a topic from the beginning with a throw-away consumer group until `expected` records
// arrived or `timeout` passed. For the demo's accounting and for tests, not for the pipeline.
std::vector<record> read_topic(const std::string& brokers, const std::string& topic,
                               std::size_t expected, std::chrono::milliseconds timeout,
                               const std::map<std::string, std::string>& extra = {});

}  // namespace courier::demo
