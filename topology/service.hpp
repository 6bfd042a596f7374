#pragma once

#include "core/config.hpp"

namespace courier::topology {

// `courier run`: the pipeline against a real Kafka until SIGTERM or SIGINT, then a graceful
// stop (stop fetching, finish in-flight deliveries, commit, close). Returns the exit status.
int run_service(const courier_config& cfg);

}  // namespace courier::topology
