#pragma once

// An actor system on CAF's deterministic test coordinator: messages run only when the test
// says run(), and timers fire only when it advances the virtual clock.

#include <memory>

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include "actors/messages.hpp"

namespace courier::testing {

struct deterministic_system {
  deterministic_system() {
    actors::add_message_types(cfg);
    cfg.set("scheduler.policy", caf::atom("testing"));
    sys = std::make_unique<caf::actor_system>(cfg);
    sched = &dynamic_cast<caf::scheduler::test_coordinator&>(sys->scheduler());
  }

  void run() { sched->run(); }

  // Moves the virtual clock, fires what became due, and runs what that sent.
  void advance(caf::timespan by) {
    sched->advance_time(by);
    sched->run();
  }

  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf::scheduler::test_coordinator* sched = nullptr;
};

}  // namespace courier::testing
