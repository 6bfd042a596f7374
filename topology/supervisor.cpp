#include "topology/supervisor.hpp"

#include "actors/messages.hpp"
#include "core/log/json_log.hpp"

namespace courier::topology {

supervisor::supervisor(caf::actor_system& system, const pipeline& p) : self_(system) {
  for (const auto& [name, actor] : p.actors()) {
    names_.emplace(actor.address(), name);
    self_->monitor(actor);
  }
}

caf::actor supervisor::handle() const { return caf::actor_cast<caf::actor>(self_); }

stop_cause supervisor::wait() {
  stop_cause cause;
  bool done = false;
  while (!done) {
    self_->receive(
        [&](const caf::down_msg& down) {
          cause.what = stop_cause::kind::actor_died;
          const auto it = names_.find(down.source);
          cause.actor = it == names_.end() ? "unknown actor" : it->second;
          cause.reason = to_string(down.reason);
          log::error("actor died", {{"actor", cause.actor},
                                    {"reason", cause.reason},
                                    {"action", "draining, committing and exiting non-zero"}});
          done = true;
        },
        [&](actors::stop_atom, int signal) {
          cause.what = stop_cause::kind::signal;
          cause.signal = signal;
          done = true;
        });
  }
  return cause;
}

}  // namespace courier::topology
