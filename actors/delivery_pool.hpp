#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/route_metrics.hpp"
#include "core/delivery/answer_judge.hpp"
#include "core/delivery/backoff.hpp"
#include "core/config/config.hpp"
#include "core/delivery/hmac_signer.hpp"
#include "core/http/client.hpp"
#include "core/model/record.hpp"

namespace courier::actors {

// One record on its way to the receiver.
struct pending_delivery {
  record rec;
  std::string idempotency_key;
  caf::actor reply_to;  // the consumer that fetched the record
  int attempts = 0;     // attempts of the current sequence
  int total_attempts = 0;
  int held_attempts = 0;  // answered with an endpoint failure: not counted in `attempts`
  bool probe = false;
  std::uint64_t breaker_generation = 0;  // of the permit of its latest attempt
  // Head-of-line bound: `in_backoff` while a retriable failure waits for its next attempt,
  // `expedited` once the consumer asked to move the record on (it does at its next retriable
  // failure), `moving_on` once it is on its way to a tier or the DLQ (no more attempts).
  bool in_backoff = false;
  bool expedited = false;
  bool moving_on = false;
  std::string last_error_class;
  attempt_result last_result;
  std::vector<std::string> trace;  // one entry per failed attempt, for the retry/DLQ headers
};

struct delivery_pool_state {
  static inline const char* name = "courier.delivery_pool";
  route_config route;
  std::shared_ptr<http::client> client;
  std::optional<hmac_signer> signer;
  std::optional<full_jitter_backoff> backoff;
  std::optional<answer_judge> judge;
  caf::actor breaker;
  caf::actor router;  // produces retry-tier and DLQ records
  std::string dlq_topic;
  std::unordered_map<std::uint64_t, pending_delivery> pending;
  std::deque<std::uint64_t> parked;  // waiting for the breaker to leave Open
  bool breaker_open = false;         // as the breaker's latest state change said
  std::uint64_t next_id = 1;
  std::shared_ptr<route_metrics> metrics;
};

// One per route. Takes records, asks the breaker for a permit before every attempt, posts them
// over the pooled HTTP client, retries retriable failures with full-jitter backoff on timers.
// A record still failing after its attempts goes to the next retry tier, a permanent failure
// to the DLQ, both through the retry router. An endpoint failure (401/403, a run of permanent
// answers) is a failed delivery for the breaker and holds the record: it is tried again, and
// waits while the breaker is Open, but is never dead-lettered for it. Reports exactly one outcome
// per record to the actor that sent it, and a retried or dead-lettered one only once the broker
// acknowledged it.
//   deliver_atom, record           (from a consumer)
//   state_atom, breaker_change     (from the breaker: parked records try again)
//   expedite_atom, topic, partition, offset   (from a consumer: the head-of-line bound)
caf::behavior delivery_pool(caf::stateful_actor<delivery_pool_state>* self, route_config route,
                            std::shared_ptr<http::client> client, caf::actor breaker,
                            caf::actor router, std::shared_ptr<route_metrics> metrics,
                            std::uint64_t seed);

}  // namespace courier::actors
