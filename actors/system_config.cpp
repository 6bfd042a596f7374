#include "actors/system_config.hpp"

#include <algorithm>
#include <thread>

#include "actors/messages.hpp"

namespace courier::actors {

std::size_t scheduler_workers() {
  return std::max<std::size_t>(2, std::thread::hardware_concurrency());
}

void configure_actor_system(caf::actor_system_config& cfg) {
  add_message_types(cfg);
  cfg.set("scheduler.max-threads", scheduler_workers());
  cfg.set("scheduler.policy", caf::atom("sharing"));
}

}  // namespace courier::actors
