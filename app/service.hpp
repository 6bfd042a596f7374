#pragma once

#include "core/config/config.hpp"

namespace courier::app {

// `courier run`: the pipeline against a real Kafka until SIGTERM or SIGINT, then a graceful
// stop (stop fetching, finish in-flight deliveries, commit, close). Returns the exit status.
// At start-up it checks that every source, retry-tier and DLQ topic exists and exits with 2
// naming the missing ones.
int run_service(const courier_config& cfg);

// `courier topics ensure`: creates the missing topics and lists them. Returns the exit status.
int run_topics_ensure(const courier_config& cfg, int source_partitions);

}  // namespace courier::app
