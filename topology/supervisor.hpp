#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include <caf/all.hpp>

#include "topology/pipeline.hpp"

namespace courier::topology {

// Why the process stops.
struct stop_cause {
  enum class kind {
    signal,
    actor_died,
    io_failed,  // a handler on an io thread threw (http/io_failure.hpp)
  };
  kind what = kind::signal;
  int signal = 0;      // kind::signal
  std::string actor;   // kind::actor_died: "<role> of route <name>", or "retry_router"
  std::string reason;  // kind::actor_died, kind::io_failed
};

// The pipeline's supervisor, in the Erlang/OTP sense: it monitors every actor of the pipeline,
// and the first one that goes down stops the process (the caller drains, commits and exits
// non-zero; the orchestrator restarts it), so a process that is up has every route working.
// wait() also returns when handle() receives (stop_atom, signal number), or (stop_atom, what)
// for an io thread's failure.
class supervisor {
 public:
  supervisor(caf::actor_system& system, const pipeline& p);

  supervisor(const supervisor&) = delete;
  supervisor& operator=(const supervisor&) = delete;

  [[nodiscard]] caf::actor handle() const;

  // Blocks until a stop request or an actor's death; logs a death as one structured error.
  stop_cause wait();

  // As wait(), for at most `timeout`: nothing when neither came (the demo's display loop).
  std::optional<stop_cause> wait_for(std::chrono::milliseconds timeout);

 private:
  std::optional<stop_cause> receive_one(caf::duration timeout);

  caf::scoped_actor self_;
  std::map<caf::actor_addr, std::string> names_;
};

}  // namespace courier::topology
