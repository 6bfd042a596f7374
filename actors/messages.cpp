#include "actors/messages.hpp"

namespace courier::actors {

void add_message_types(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::courier>();
}

}  // namespace courier::actors
