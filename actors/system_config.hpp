#pragma once

#include <cstddef>

#include <caf/actor_system_config.hpp>

namespace courier::actors {

// One scheduler worker per core, at least two (CAF 0.17's default is at least four).
std::size_t scheduler_workers();

// What `courier run`, the demo and the benchmark's actor systems use: courier's message types,
// scheduler_workers() workers and CAF's work-sharing scheduler. CAF 0.17's default,
// work-stealing, keeps idle workers polling their queues (50 us sleeps between polls, for
// 25 ms after the last job): a profile of courier at 0 ms showed about a fifth of all its CPU
// in those sleeps, and the extra workers competed with the HTTP thread, librdkafka and the
// receiver for a two-core machine. Work-sharing workers wait on a condition variable; courier's
// actors are few (a handful per route), so one shared queue is no contention. Measured in
// docs/performance.md.
void configure_actor_system(caf::actor_system_config& cfg);

}  // namespace courier::actors
