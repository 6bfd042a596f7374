#pragma once

#include <chrono>
#include <cstdint>

namespace courier::actors {

// Unix time in milliseconds, the clock of Kafka record timestamps and retry due times.
inline std::int64_t unix_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

}  // namespace courier::actors
