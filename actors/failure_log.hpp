#pragma once

#include <string>

#include <caf/all.hpp>

namespace courier::actors {

// Installs an exception handler on `self`: an exception that escapes a message handler is
// logged as one structured error ("actor failed", the actor, the route, the exception's text)
// and ends the actor with exit_reason::unhandled_exception, which its monitor (the topology's
// supervisor) turns into a drain and a non-zero exit. Without it CAF prints one unstructured
// line and the actor is silently gone.
void log_failures(caf::scheduled_actor* self, std::string actor, std::string route);

}  // namespace courier::actors
