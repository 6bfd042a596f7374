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

// A consumer polls at least twice a second while it runs (librdkafka serves the group's
// rebalances and heartbeats only through poll); one that has not for this long is stuck.
inline constexpr std::chrono::milliseconds poll_silence_bound{30'000};

// /healthz: healthy while every supervised actor answered its ping within the bound (a dead
// actor answers "down" at once, a stuck one times out) and every route's consumer that has
// polled polled within `poll_bound` of `now_steady_ms` (actors::steady_now_ms()).
verdict liveness(const std::vector<actor_answer>& answers, std::chrono::milliseconds bound,
                 const std::vector<route_snapshot>& routes = {}, std::int64_t now_steady_ms = 0,
                 std::chrono::milliseconds poll_bound = poll_silence_bound);

}  // namespace courier::admin
