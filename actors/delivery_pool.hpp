#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/answer_inbox.hpp"
#include "actors/event_batches.hpp"
#include "actors/actor_time.hpp"
#include "actors/messages.hpp"
#include "actors/route_metrics.hpp"
#include "core/delivery/attempt_policy.hpp"
#include "core/http/client.hpp"
#include "core/http/poster.hpp"
#include "core/log/event_sampler.hpp"

namespace courier::actors {

// What a route's delivery pool runs with (topology/route_settings.hpp makes it from the route).
struct delivery_pool_settings {
  attempt_policy_settings policy;
  bool ordered = false;  // routes[].ordering "key": a DLQ record names the followers of its key
  // How long answers from the io thread are gathered before the pool takes them (routes[].http).
  std::chrono::milliseconds gather_answers{1};
};

struct delivery_pool_state {
  static inline const char* name = "courier.delivery_pool";
  std::optional<attempt_policy> policy;  // decides; the actor carries its actions out
  std::shared_ptr<http::poster> client;  // http::client, or a test's fake
  caf::actor breaker;
  caf::actor router;  // produces retry-tier and DLQ records
  caf::actor keeper;  // the route's credential keeper (routes[].auth), once it sent credentials
  std::unordered_map<delivery_id, caf::actor> consumers;  // who sent each pending delivery
  // Outcomes decided by the current event, per consumer, sent as one batch at its end.
  event_batches<outcome_batch> outbox;
  // Records answered 2xx in the current event whose receipts go to the router, per consumer:
  // sent as one batch at its end, before the outcomes.
  event_batches<answered_batch> answered;
  // Onward records (tier, DLQ, receipt) decided by the current event, sent to the router as
  // one message at its end, and those the router has, not yet acknowledged.
  std::vector<onward_record> to_router;
  std::unordered_set<delivery_id> at_router;
  std::shared_ptr<answer_sink> sink;    // where the io thread leaves the answers
  std::vector<attempt_answer> answers;  // the latest take of the inbox; keeps its capacity
  std::shared_ptr<route_metrics> metrics;
  delivery_counts published;  // the policy's counters as far as `metrics` has them
  std::string route;
  bool ordered = false;  // routes[].ordering "key": a DLQ record names the followers of its key
  actor_time time;       // the policy's clock (actor_time.hpp)
  // The policy's per-record lines (dead-lettered, moved to a tier, retry scheduled, held): the
  // first 10 of each per 10 s, then a count; the metrics count every record.
  log::event_sampler sampler{10, std::chrono::seconds{10}};
};

// One per route: the shell of courier::attempt_policy (core/delivery/attempt_policy.hpp), which
// decides for each record: ask the breaker for a permit before every attempt, post it over the
// pooled HTTP client, retry retriable failures with full-jitter backoff on timers, move a record
// still failing after its attempts to the next retry tier and a permanent failure to the DLQ,
// both through the retry router, and hold a record the endpoint refused (401/403, a run of
// permanent answers: a failed delivery for the breaker, never dead-lettered for it). Reports
// exactly one outcome per record to the actor that sent it, and a retried or dead-lettered one
// (or, with receipts, a delivered one) only once the broker acknowledged it; a delivered record
// whose receipt is on its way is told of before (receipt_atom, answered_batch), so the consumer
// lets it out of the route's bound meanwhile.
//   deliver_atom, record_batch     (from a consumer: one poll turn's records)
//   dead_letter_atom, record_batch (from a consumer: an ordered route's parked records, to the
//                                   DLQ unattempted; with unknown_endpoint_atom, from a route's
//                                   fan-out: records that name none of its endpoints)
//   answers_atom                   (from the HTTP client's thread: take the answer inbox)
//   state_atom, breaker_change     (from the breaker: parked records try again)
//   expedite_atom, record_position           (from a consumer: the head-of-line bound)
//   blocked_atom, onward_blocked  (from the router: forwarded to the record's consumer)
//   onward_acked_atom, tags        (from the router: the broker acknowledged these onward
//                                   records; the pool sends them as route_atom, a vector of
//                                   onward_record, one message per event, tag = delivery id)
//   token_atom                     (from itself: the rate limit has a token again)
//   share_atom, assigned, topic_partitions  (from the consumer: its share of the quota)
//   credentials_atom, authorization (from the route's credential keeper; asked with
//                                   refresh_atom, stale -> fresh after a 401)
//   pause_atom | resume_atom, pause_reason -> bool  (the admin listener: an operator's pause of
//                                   an endpoint of a route with several; paused now)
//   log_flush_atom                 (from itself, a sampling window after a burst of per-record
//                                   lines began: logs what no later line carried)
caf::behavior delivery_pool(caf::stateful_actor<delivery_pool_state>* self,
                            delivery_pool_settings settings, std::shared_ptr<http::poster> client,
                            caf::actor breaker, caf::actor router,
                            std::shared_ptr<route_metrics> metrics, std::uint64_t seed);

}  // namespace courier::actors
