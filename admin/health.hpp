#pragma once

// GET /readyz and /healthz: the verdicts, pure functions of the routes' snapshots and of how
// the supervised actors answered their ping.

#include <chrono>
#include <string>
#include <vector>

#include "admin/snapshot.hpp"

namespace courier::admin {

// A check's answer: ok (200) or not (503), and a JSON body that says why.
struct verdict {
  bool ok = false;
  std::string body;
};

// /readyz: ready once every route's consumer was assigned at least once (an empty assignment
// counts) and none is draining, and the process is not stopping.
verdict readiness(const std::vector<route_snapshot>& routes, bool stopping);

// How one supervised actor answered the liveness ping.
struct actor_answer {
  enum class kind { answered, down, timed_out };
  std::string name;
  kind what = kind::answered;
};

// /healthz: healthy while every supervised actor answered its ping within the bound (a dead
// actor answers "down" at once, a stuck one times out).
verdict liveness(const std::vector<actor_answer>& answers, std::chrono::milliseconds bound);

}  // namespace courier::admin
