#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "core/config/config.hpp"

namespace courier::demo {

// `courier demo`'s flags (app/cli.cpp reads them).
struct demo_options {
  std::size_t records = 1000;
  int partitions = 4;
  double fail_rate_503 = 0;
  double fail_rate_timeout = 0;
  double fail_rate_400 = 0;  // the same records every time (chosen by key)
  std::chrono::milliseconds latency{0};
  std::chrono::milliseconds outage{0};
  std::uint64_t seed = 42;
  bool progress = true;
};

// `courier demo`: librdkafka's mock cluster and the mock webhook in process, N seeded shipment
// assignments, the real actor pipeline, a progress bar and an accounting table. Returns the
// exit status: 0 only when every seeded record reached the receiver.
int run_demo(const demo_options& options, courier_config cfg);

}  // namespace courier::demo
