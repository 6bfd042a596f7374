#pragma once

// A route's pending deliveries: each record the attempt policy (core/delivery/attempt_policy.hpp)
// took and has not reported yet, with where it is in its attempt cycle, found by its delivery id
// or by its record's position (the consumer's head-of-line bound names a position).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/delivery/attempt_gate.hpp"
#include "core/model/attempt_answer.hpp"
#include "core/model/delivery_id.hpp"
#include "core/model/record.hpp"
#include "core/model/record_position.hpp"

namespace courier {

// Where a delivery is in its attempt cycle.
enum class delivery_phase : std::uint8_t {
  arrived,                 // handed in, its first attempt not asked for yet
  asking_breaker,          // request_permit is out
  waiting_breaker,         // its permit was denied: parked until the breaker leaves Open
  waiting_credentials,     // the route has no Authorization value yet
  waiting_token,           // the rate limit's next token
  waiting_slot,            // a slot of the adaptive limit
  in_flight,               // its attempt is posted
  refreshing_credentials,  // a 401 asked for fresh credentials
  backing_off,             // a retriable failure waits for its next attempt
  waiting_budget,          // a retry the budget refused waits its backoff (a route without tiers)
  held,                    // an endpoint failure waits its backoff
  writing_receipt,         // delivered; its receipt is on its way (routes[].receipts_topic)
  moving_to_tier,          // on its way to a retry tier (no more attempts)
  dead_lettering,          // on its way to the DLQ (no more attempts)
};

// One record on its way to the receiver.
struct pending_delivery {
  record rec;
  std::string idempotency_key;
  delivery_phase phase = delivery_phase::arrived;
  attempt_ticket ticket;  // what it holds at the gate: the breaker's permit, a token, ...
  int attempts = 0;       // attempts of the current sequence
  int total_attempts = 0;
  int held_attempts = 0;  // answered with an endpoint failure: not counted in `attempts`
  // The consumer's head-of-line bound asked to move the record on: it does at once while it is
  // backing off, or at its next retriable failure.
  bool expedited = false;
  bool credentials_refreshed = false;        // a 401 of it asked for fresh credentials once
  std::uint64_t credentials_generation = 0;  // of the Authorization its latest attempt carried
  std::string authorization_sent;            // that Authorization: redacted from its answer
  std::string last_error_class;
  attempt_answer last_answer;
  std::vector<std::string> trace;     // one entry per failed attempt, for the retry/DLQ headers
  std::int64_t first_attempt_ms = 0;  // Unix ms of its first attempt here (0: none yet)
  // Set once it is moving on: what its outcome reports when the broker acknowledged it.
  int final_status = 0;
  std::string final_error_class;

  // A retriable failure (or a retry the budget refused) waits for its next attempt.
  [[nodiscard]] bool in_backoff() const;
  // On its way to a tier, the DLQ or its receipt: no more attempts.
  [[nodiscard]] bool moving_on() const;
};

class pending_deliveries {
 public:
  // A new delivery of `r`, named by the next id, its idempotency key read from the record. A
  // record handed in twice: its position finds the newest delivery.
  std::pair<delivery_id, pending_delivery&> take(record r);

  [[nodiscard]] pending_delivery* find(delivery_id id);
  [[nodiscard]] const pending_delivery* find(delivery_id id) const;
  // The newest delivery of the record at `at`, if it is pending.
  [[nodiscard]] std::optional<delivery_id> id_at(const record_position& at) const;

  void forget(delivery_id id);

  // The deliveries waiting for their next attempt (in_backoff), by id: in the order they came.
  [[nodiscard]] std::vector<delivery_id> backing_off() const;

  [[nodiscard]] std::size_t size() const { return by_id_.size(); }

 private:
  // A record's place; `topic` views the topic of the delivery in by_id_ the entry names (a node
  // of by_id_ never moves), so neither an insert nor a lookup copies the string.
  struct coordinates {
    std::string_view topic;
    std::int32_t partition = 0;
    std::int64_t offset = 0;
    bool operator==(const coordinates& other) const;
  };
  struct coordinates_hash {
    std::size_t operator()(const coordinates& c) const;
  };

  std::unordered_map<delivery_id, pending_delivery> by_id_;
  std::unordered_map<coordinates, delivery_id, coordinates_hash> by_coordinates_;
  std::uint64_t next_id_ = 1;
};

}  // namespace courier
