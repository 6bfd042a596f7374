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
  for (;;) {
    if (auto cause = receive_one(caf::infinite)) {
      return *cause;
    }
  }
}

std::optional<stop_cause> supervisor::wait_for(std::chrono::milliseconds timeout) {
  return receive_one(caf::duration{timeout});
}

std::optional<stop_cause> supervisor::receive_one(caf::duration timeout) {
  std::optional<stop_cause> cause;
  self_->receive(
      [&](const caf::down_msg& down) {
        stop_cause c;
        c.what = stop_cause::kind::actor_died;
        const auto it = names_.find(down.source);
        c.actor = it == names_.end() ? "unknown actor" : it->second;
        c.reason = to_string(down.reason);
        log::error("actor died", {{"actor", c.actor},
                                  {"reason", c.reason},
                                  {"action", "draining, committing and exiting non-zero"}});
        cause = std::move(c);
      },
      [&](actors::stop_atom, const std::string& io_failure) {
        stop_cause c;
        c.what = stop_cause::kind::io_failed;
        c.reason = io_failure;
        log::error("a handler on an io thread failed",
                   {{"error", c.reason}, {"action", "draining, committing and exiting non-zero"}});
        cause = std::move(c);
      },
      [&](actors::stop_atom, int signal) {
        stop_cause c;
        c.what = stop_cause::kind::signal;
        c.signal = signal;
        cause = std::move(c);
      },
      caf::after(timeout) >> [] {});
  return cause;
}

}  // namespace courier::topology
