#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/event_batches.hpp"
#include "actors/messages.hpp"
#include "actors/route_metrics.hpp"
#include "actors/router_metrics.hpp"
#include "core/kafka/producer.hpp"
#include "core/retry/onward_queue.hpp"

namespace courier::actors {

struct retry_router_state {
  static inline const char* name = "courier.retry_router";
  std::string bootstrap;
  std::map<std::string, std::string> properties;
  std::vector<std::string> topics;  // every route's onward topics: learnt by each producer
  std::unique_ptr<kafka::producer> producer;
  // The protocol: which records wait for an acknowledgement, and what each report means.
  onward_queue queue;
  // What the queue does not keep of each of its records, by its id: the record, and whom to
  // answer and tell while it fails.
  struct waiting {
    onward_record request;
    caf::actor requester;  // told once acknowledged, and while producing it fails
  };
  std::map<std::uint64_t, waiting> pending;
  // The producer's delivery reports, left by its callbacks inside poll() for the actor to take
  // once poll returns.
  struct report {
    std::uint64_t id = 0;
    std::uint64_t generation = 0;
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  };
  std::shared_ptr<std::vector<report>> reports = std::make_shared<std::vector<report>>();
  // The tags acknowledged by the current event, per requester, sent as one message at its end.
  event_batches<std::vector<std::uint64_t>> acked;
  std::shared_ptr<router_metrics> metrics;
};

// Detached: owns one idempotent producer (acks=all) and writes retry-tier and DLQ records.
// Answers a dispatch request only when the broker acknowledged the record; on an error it
// produces the record again after a backoff, so what it was given is never lost. A fatal
// idempotent-producer error rebuilds the producer and re-produces everything not yet acked
// (the old producer's reports are ignored from then on). A record whose partition does not
// exist in its destination (a tier or DLQ topic with fewer partitions than the source) goes
// to the partition librdkafka's partitioner picks for its key instead.
// While a record fails (too large for its topic, topic missing, not authorized) the requester
// is told once, (blocked_atom, onward_blocked{blocked = true}), and again once it is through.
// What to do when is decided by its onward_queue (core/retry/onward_queue.hpp); the actor holds
// the producer and carries the decisions out. Each producer it makes learns `onward_topics`
// (every route's tiers, DLQ and receipts topic) before its first record.
//   route_atom, std::vector<onward_record>   (a requester's records; no answer of its own)
// and tells each requester (onward_acked_atom, tags) which of its records the broker
// acknowledged, by their tags, one message per event. A requester learns that the router is gone
// from its monitor.
caf::behavior retry_router(caf::stateful_actor<retry_router_state>* self, std::string bootstrap,
                           const std::map<std::string, std::string>& properties,
                           std::vector<std::string> onward_topics,
                           std::shared_ptr<router_metrics> metrics);

}  // namespace courier::actors
