#pragma once

#include <cstdint>

#include "core/model/log_line.hpp"

namespace courier::log {

// Writes a core class's log line at its level; `suppressed` > 0 adds how many lines of its
// event the sampler held back since the last one.
void write(const log_line& line, std::uint64_t suppressed = 0);

}  // namespace courier::log
