#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <chrono>
#include <map>
#include <optional>
#include <vector>
#include <memory>
#include <string>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/route_metrics.hpp"
#include "actors/actor_time.hpp"
#include "core/redrive/auto_redrive_trigger.hpp"

namespace courier::actors {

// What one redrive of an auto-redrive event did (or, for a preview, would do).
struct auto_redrive_outcome {
  std::size_t moved = 0;
  std::size_t would_move = 0;  // a preview's
  std::size_t failed = 0;
  std::size_t already_redriven = 0;
  bool stopped = false;
  std::string error;  // the run could not start, or a Kafka error cut it short
};

// Redrives one event's DLQ records (blocking, on a thread of its own): the topology's is
// core/redrive's move_records over the route's DLQ with the event's window, classes, rate and
// max, through redrive's ledger and transactions. `dry_run`: only count what it would move.
// `stop`: polled between transactions.
using auto_redrive_runner = std::function<auto_redrive_outcome(
  const auto_redrive_event& event, bool dry_run, const std::function<bool()>& stop)>;

// How long a preview's dry run answers later requests too.
inline constexpr std::chrono::seconds preview_reuse{30};

struct auto_redrive_actor_state {
  static inline const char* name = "courier.auto_redrive";
  std::string route;
  std::string endpoint;  // of a route with several: the one whose breaker it follows
  std::unique_ptr<auto_redrive_trigger> trigger;
  auto_redrive_runner runner;
  std::shared_ptr<route_metrics> metrics;
  // Set to stop the run under way (the operator, a reopened breaker, the actor's exit); a new
  // flag per run.
  std::shared_ptr<std::atomic<bool>> stop_run;
  // Set once the actor is gone (courier stops): every worker stops at its next batch.
  std::shared_ptr<std::atomic<bool>> shutdown = std::make_shared<std::atomic<bool>>(false);
  std::uint64_t generation = 0;  // of the armed check
  // The preview: one dry run at a time, whose answer goes to every request that came meanwhile
  // and is kept for preview_reuse (the admin listener waits for it only briefly, then asks
  // again).
  std::uint64_t next_preview = 0;
  std::optional<auto_redrive_event> preview_window;  // of the dry run under way
  std::vector<caf::typed_response_promise<std::string>> preview_waiting;
  std::optional<nlohmann::json> last_preview;
  std::int64_t last_preview_ms = 0;
  // The trigger's phase as the route's auto-redrive gauges last counted it.
  auto_redrive_trigger::phase published = auto_redrive_trigger::phase::idle;
  actor_time time;            // the trigger's and the timers' clock (actor_time.hpp)
  auto_redrive_outcome last;  // of the last run
  std::int64_t last_ended_ms = 0;
};

// One per route with routes[].auto_redrive, or per endpoint of a route with several (`endpoint`
// names it; empty for a route with one): subscribes to the breaker, drives the
// auto_redrive_trigger with its changes and the wall clock, and runs each due event on a
// detached worker, one at a time. Announces every event in the log and counts it in metrics.
//   state_atom, breaker_change          (from the breaker)
//   get_atom                            -> std::string: the trigger's state and a dry run of
//                                          what an event fired now would move (JSON; one
//                                          under preview_reuse old is answered again)
//   stop_atom                           -> std::string: what the operator's stop did (JSON)
caf::behavior auto_redrive_actor(caf::stateful_actor<auto_redrive_actor_state>* self,
                                 std::string route, std::string endpoint,
                                 auto_redrive_settings settings, auto_redrive_runner runner,
                                 std::shared_ptr<route_metrics> metrics);

}  // namespace courier::actors
