#pragma once

#include "core/config/config.hpp"
#include "topology/cli.hpp"

namespace courier::demo {

// `courier demo`: librdkafka's mock cluster and the mock webhook in process, N seeded shipment
// assignments, the real actor pipeline, a progress bar and an accounting table. Returns the
// exit status: 0 only when every seeded record reached the receiver.
int run_demo(const topology::demo_options& options, courier_config cfg);

}  // namespace courier::demo
