#pragma once

// The one CAF type-ID block for every message courier's actors exchange.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "core/delivery/breaker.hpp"
#include "core/flow/partition_pauses.hpp"
#include "core/model/breaker_permit.hpp"
#include "core/model/delivery_end.hpp"
#include "core/model/record.hpp"

namespace courier {

// A payload travels as its bytes (CAF copies messages between processes only; within one
// process the shared bytes go along with the record).
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, payload& x) {
  std::string bytes = x.str();
  auto restore = caf::meta::load_callback([&]() -> caf::error {
    x = payload{std::move(bytes)};
    return caf::none;
  });
  return f(bytes, restore);
}

// CAF 0.17 cannot inspect std::optional: the key travels as a flag and a string.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, record& x) {
  bool has_key = x.key.has_value();
  std::string key = x.key.value_or(std::string{});
  auto restore_key = caf::meta::load_callback([&]() -> caf::error {
    x.key = has_key ? std::optional<std::string>{std::move(key)} : std::nullopt;
    return caf::none;
  });
  return f(caf::meta::type_name("record"), x.topic, x.partition, x.offset, has_key, key, x.value,
           x.headers, x.timestamp_ms, restore_key);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, breaker_permit& x) {
  return f(caf::meta::type_name("breaker_permit"), x.granted, x.probe, x.generation);
}

}  // namespace courier

namespace courier::actors {

// How a record's delivery ended, as the delivery pool reports it to the record's consumer.
struct delivery_outcome {
  std::string topic;
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  delivery_end kind = delivery_end::delivered;
  std::int32_t attempts = 0;
  std::int32_t status = 0;
  std::string error_class;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, delivery_outcome& x) {
  return f(caf::meta::type_name("delivery_outcome"), x.topic, x.partition, x.offset, x.kind,
           x.attempts, x.status, x.error_class);
}

// What travels in one message between a consumer and its delivery pool: the records of one
// poll turn, the outcomes one event of the pool decided (one message per batch, not per record).
using record_batch = std::vector<record>;
using outcome_batch = std::vector<delivery_outcome>;

struct breaker_change {
  std::string route;
  breaker_state from = breaker_state::closed;
  breaker_state to = breaker_state::closed;
  std::uint64_t generation = 0;  // the breaker's, after the change
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, breaker_change& x) {
  return f(caf::meta::type_name("breaker_change"), x.route, x.from, x.to, x.generation);
}

// A retry-tier or DLQ record for the retry router to produce (DESIGN.md section 5).
struct dispatch_request {
  std::string topic;
  std::int32_t partition = 0;
  bool has_key = false;
  std::string key;
  payload value;
  header_list headers;
  std::int64_t timestamp_ms = 0;
  // Where the record was fetched from, and the requester's own name for it: both come back
  // in a produce_blocked notice.
  std::string from_topic;
  std::int32_t from_partition = 0;
  std::int64_t from_offset = 0;
  std::uint64_t tag = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, dispatch_request& x) {
  return f(caf::meta::type_name("dispatch_request"), x.topic, x.partition, x.has_key, x.key,
           x.value, x.headers, x.timestamp_ms, x.from_topic, x.from_partition, x.from_offset,
           x.tag);
}

// From the retry router to the requester of a dispatch, and on from the delivery pool to the
// record's consumer: producing the record fetched at from_topic/from_partition/from_offset
// fails (`blocked`, with the broker's reason) or, after failing, has been acknowledged.
struct produce_blocked {
  std::string from_topic;
  std::int32_t from_partition = 0;
  std::int64_t from_offset = 0;
  bool blocked = false;
  std::string destination;
  std::string reason;
  std::uint64_t tag = 0;  // the dispatch_request's
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, produce_blocked& x) {
  return f(caf::meta::type_name("produce_blocked"), x.from_topic, x.from_partition, x.from_offset,
           x.blocked, x.destination, x.reason, x.tag);
}

// Why a partition's fetching is paused: courier::pause_reason (core/partition_pauses.hpp).
using courier::pause_reason;
using courier::to_string;

}  // namespace courier::actors

CAF_BEGIN_TYPE_ID_BLOCK(courier, caf::first_custom_type_id)

  CAF_ADD_TYPE_ID(courier, (courier::record))
  CAF_ADD_TYPE_ID(courier, (courier::actors::delivery_outcome))
  CAF_ADD_TYPE_ID(courier, (courier::breaker_permit))
  CAF_ADD_TYPE_ID(courier, (courier::actors::breaker_change))
  CAF_ADD_TYPE_ID(courier, (courier::pause_reason))
  CAF_ADD_TYPE_ID(courier, (courier::actors::dispatch_request))
  CAF_ADD_TYPE_ID(courier, (courier::actors::produce_blocked))
  CAF_ADD_TYPE_ID(courier, (std::vector<courier::record>))
  CAF_ADD_TYPE_ID(courier, (std::vector<courier::actors::delivery_outcome>))

  CAF_ADD_ATOM(courier, courier::actors, deliver_atom, "deliver")
  CAF_ADD_ATOM(courier, courier::actors, outcome_atom, "outcome")
  CAF_ADD_ATOM(courier, courier::actors, permit_atom, "permit")
  CAF_ADD_ATOM(courier, courier::actors, attempt_atom, "attempt")
  CAF_ADD_ATOM(courier, courier::actors, state_atom, "state")
  CAF_ADD_ATOM(courier, courier::actors, subscribe_atom, "subscribe")
  CAF_ADD_ATOM(courier, courier::actors, open_expired_atom, "openexpire")
  CAF_ADD_ATOM(courier, courier::actors, pause_check_atom, "pausecheck")
  CAF_ADD_ATOM(courier, courier::actors, pause_atom, "pause")
  CAF_ADD_ATOM(courier, courier::actors, resume_atom, "resume")
  CAF_ADD_ATOM(courier, courier::actors, poll_atom, "poll")
  CAF_ADD_ATOM(courier, courier::actors, poll_idle_atom, "pollidle")
  CAF_ADD_ATOM(courier, courier::actors, drain_atom, "drain")
  CAF_ADD_ATOM(courier, courier::actors, route_atom, "route")
  CAF_ADD_ATOM(courier, courier::actors, produced_atom, "produced")
  CAF_ADD_ATOM(courier, courier::actors, reproduce_atom, "reproduce")
  CAF_ADD_ATOM(courier, courier::actors, due_atom, "due")
  CAF_ADD_ATOM(courier, courier::actors, drain_deadline_atom, "draindead")
  CAF_ADD_ATOM(courier, courier::actors, stop_atom, "stop")
  CAF_ADD_ATOM(courier, courier::actors, expedite_atom, "expedite")
  CAF_ADD_ATOM(courier, courier::actors, blocked_atom, "blocked")
  CAF_ADD_ATOM(courier, courier::actors, answers_atom, "answers")
  CAF_ADD_ATOM(courier, courier::actors, log_flush_atom, "logflush")

CAF_END_TYPE_ID_BLOCK(courier)

namespace courier::actors {

// Registers the block with an actor system configuration.
void add_message_types(caf::actor_system_config& cfg);

}  // namespace courier::actors
