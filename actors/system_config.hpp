#pragma once

#include <cstddef>

#include <caf/actor_system_config.hpp>

namespace courier::actors {

// CAF's work-stealing scheduler with one worker per core (at least two). CAF 0.17's default is
// at least four: on a two-core machine the extra idle workers poll their queues (sleeping
// 50 us between polls) and compete with the HTTP thread, librdkafka and the receiver for the
// cores; measured in docs/performance.md.
std::size_t scheduler_workers();

// What `courier run`, the demo and the benchmark's actor systems use: courier's message types
// and scheduler_workers() workers.
void configure_actor_system(caf::actor_system_config& cfg);

}  // namespace courier::actors
