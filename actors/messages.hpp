#pragma once

// The one CAF type-ID block for every message courier's actors exchange, and the inspect
// overloads of the types they carry (declared in core/: core/model, core/delivery/breaker.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "core/delivery/breaker.hpp"
#include "core/flow/partition_pauses.hpp"
#include "core/model/breaker_permit.hpp"
#include "core/model/delivery_end.hpp"
#include "core/model/delivery_id.hpp"
#include "core/model/delivery_outcome.hpp"
#include "core/model/onward_record.hpp"
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

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, record_position& x) {
  return f(caf::meta::type_name("record_position"), x.topic, x.partition, x.offset);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, delivery_outcome& x) {
  return f(caf::meta::type_name("delivery_outcome"), x.record, x.end, x.attempts, x.status,
           x.error_class);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, breaker_change& x) {
  return f(caf::meta::type_name("breaker_change"), x.route, x.from, x.to, x.generation);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, breaker_failure& x) {
  return f(caf::meta::type_name("breaker_failure"), x.error_class, x.message);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, onward_record& x) {
  return f(caf::meta::type_name("onward_record"), x.produce, x.from, x.tag);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, onward_blocked& x) {
  return f(caf::meta::type_name("onward_blocked"), x.from, x.blocked, x.destination, x.reason,
           x.tag);
}

}  // namespace courier

namespace courier::actors {

// What travels in one message between a consumer and its delivery pool: the records of one
// poll turn, the outcomes one event of the pool decided (one message per batch, not per record).
using record_batch = std::vector<record>;
using outcome_batch = std::vector<delivery_outcome>;
// The records of one event of the pool answered 2xx whose receipts went to the retry router
// (the consumer lets them out of the route's bound until their outcomes come).
using answered_batch = std::vector<record_position>;

// Why a partition's fetching is paused: courier::pause_reason (core/partition_pauses.hpp).
using courier::pause_reason;
using courier::to_string;

}  // namespace courier::actors

CAF_BEGIN_TYPE_ID_BLOCK(courier, caf::first_custom_type_id)

  CAF_ADD_TYPE_ID(courier, (courier::record))
  CAF_ADD_TYPE_ID(courier, (courier::delivery_outcome))
  CAF_ADD_TYPE_ID(courier, (courier::breaker_permit))
  CAF_ADD_TYPE_ID(courier, (courier::delivery_id))
  CAF_ADD_TYPE_ID(courier, (courier::breaker_change))
  CAF_ADD_TYPE_ID(courier, (courier::breaker_failure))
  CAF_ADD_TYPE_ID(courier, (courier::pause_reason))
  CAF_ADD_TYPE_ID(courier, (courier::onward_record))
  CAF_ADD_TYPE_ID(courier, (courier::onward_blocked))
  CAF_ADD_TYPE_ID(courier, (std::vector<courier::record>))
  CAF_ADD_TYPE_ID(courier, (std::vector<courier::delivery_outcome>))
  CAF_ADD_TYPE_ID(courier, (courier::record_position))
  CAF_ADD_TYPE_ID(courier, (std::vector<courier::record_position>))
  CAF_ADD_TYPE_ID(courier, (std::vector<courier::onward_record>))
  CAF_ADD_TYPE_ID(courier, (std::vector<std::uint64_t>))

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
  CAF_ADD_ATOM(courier, courier::actors, reproduce_atom, "reproduce")
  CAF_ADD_ATOM(courier, courier::actors, due_atom, "due")
  CAF_ADD_ATOM(courier, courier::actors, drain_deadline_atom, "draindead")
  CAF_ADD_ATOM(courier, courier::actors, stop_atom, "stop")
  CAF_ADD_ATOM(courier, courier::actors, expedite_atom, "expedite")
  CAF_ADD_ATOM(courier, courier::actors, blocked_atom, "blocked")
  CAF_ADD_ATOM(courier, courier::actors, answers_atom, "answers")
  CAF_ADD_ATOM(courier, courier::actors, log_flush_atom, "logflush")
  CAF_ADD_ATOM(courier, courier::actors, credentials_atom, "creds")
  CAF_ADD_ATOM(courier, courier::actors, refresh_atom, "refresh")
  CAF_ADD_ATOM(courier, courier::actors, share_atom, "share")
  CAF_ADD_ATOM(courier, courier::actors, token_atom, "token")
  CAF_ADD_ATOM(courier, courier::actors, commit_atom, "commit")
  CAF_ADD_ATOM(courier, courier::actors, revoke_deadline_atom, "revokedead")
  CAF_ADD_ATOM(courier, courier::actors, dead_letter_atom, "deadletter")
  CAF_ADD_ATOM(courier, courier::actors, followers_atom, "followers")
  CAF_ADD_ATOM(courier, courier::actors, redrive_done_atom, "redrvdone")
  CAF_ADD_ATOM(courier, courier::actors, unknown_endpoint_atom, "unknownep")
  CAF_ADD_ATOM(courier, courier::actors, receipt_atom, "receipt")
  CAF_ADD_ATOM(courier, courier::actors, onward_acked_atom, "onwardack")

CAF_END_TYPE_ID_BLOCK(courier)

namespace courier::actors {

// Registers the block with an actor system configuration.
void add_message_types(caf::actor_system_config& cfg);

}  // namespace courier::actors
