#include "actors/messages.hpp"

namespace courier::actors {

std::string to_string(outcome_kind k) {
  switch (k) {
    case outcome_kind::delivered:
      return "delivered";
    case outcome_kind::retried:
      return "retried";
    case outcome_kind::dead_lettered:
      return "dead_lettered";
  }
  return "unknown";
}

void add_message_types(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::courier>();
}

}  // namespace courier::actors
