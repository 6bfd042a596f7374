#pragma once

// The retry router's protocol: the records waiting to be acknowledged in a retry tier or the
// DLQ, and for each event what must happen next (produce a record, produce it again after a
// backoff, answer its requester, tell the requester it is blocked or through, rebuild the
// producer).
//
// The shape of attempt_policy (core/delivery/attempt_policy.hpp): each event returns the list of
// actions it decided, in the order they must be carried out; the router actor
// (actors/retry_router.cpp) holds the producer and the requesters and carries them out. The
// queue never waits for a result from the shell: a producer's report, a refusal at produce and
// a timer come back as events.
//
// Pure and thread-free. No clock: the only time it decides is a backoff, a delay the shell's
// timer waits. No librdkafka: the shell maps its producer's errors to produce_error. No logging:
// log lines are actions too.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/model/log_line.hpp"
#include "core/model/partition_id.hpp"

namespace courier {

// How producing a record ended, as the shell maps its producer's answer.
enum class produce_failure : std::uint8_t {
  none,               // the broker acknowledged it
  unknown_partition,  // the destination topic has no such partition
  failed,             // any other error, after the producer's own retries
  producer_fatal,     // refused at produce: the producer hit a fatal error and must be rebuilt
};

struct produce_error {
  produce_failure failure = produce_failure::none;
  std::string name;    // the producer's name for it ("MSG_SIZE_TOO_LARGE"): log lines
  std::string reason;  // the name and what it means: the requester's notice, log lines
  // With `failed`: the producer is left with a fatal error as well (an idempotent producer that
  // lost its sequence), so it must be rebuilt.
  bool producer_fatal = false;
};

// The wait before a record whose produce failed `failures` times (1 or more) is produced again:
// 200 ms, doubling with each failure, at most 5 s.
std::chrono::milliseconds onward_backoff(int failures);

class onward_queue {
 public:
  // A record for a retry tier or the DLQ: what the queue decides on and names in log lines. The
  // shell keeps the rest (key, value, headers, the requester) under the record's id.
  struct onward_request {
    // One of its route's route_topics::onward() (core/model/route_topics.hpp): a retry tier or
    // the DLQ, as next_destination chose it. The queue treats both alike.
    std::string topic;
    std::int32_t partition = 0;  // the source's
    partition_id from;           // where it was fetched from
  };

  // One record not yet acknowledged.
  struct onward {
    onward_request request;
    // Set once the destination turned out to lack the source's partition: produced to the
    // partition the producer's partitioner picks by key (the same key always to the same one).
    bool any_partition = false;
    int failures = 0;
    bool in_flight = false;        // handed to the producer, its report not yet in
    std::uint64_t generation = 0;  // of the producer it was handed to
    bool blocked = false;          // the requester was told it fails
  };

  using log_level = courier::log_level;
  using log_line = courier::log_line;

  // -- actions: what the shell carries out ---------------------------------------------------

  // Produce record `id` with the current producer (of `generation`) and call
  // on_report(id, generation, ...) with its report, or with its refusal if produce throws.
  struct produce_record {
    std::uint64_t id = 0;
    std::optional<std::int32_t> partition;  // none: the partitioner picks one by key
    std::uint64_t generation = 0;
  };
  // Call on_reproduce_due(id) after `delay`.
  struct schedule_reproduce {
    std::uint64_t id = 0;
    std::chrono::milliseconds delay{0};
  };
  // The broker acknowledged record `id`: answer its requester (true); the queue forgot it.
  struct answer_requester {
    std::uint64_t id = 0;
  };
  // Tell the requester of record `id` that producing it fails (`blocked`, with the reason) or,
  // after failing, got through.
  struct tell_requester {
    std::uint64_t id = 0;
    bool blocked = false;
    std::string reason;
  };
  // Replace the producer by a new one, of `generation`. What the old one still reports is stale;
  // the records it had in flight are produced again by the actions that follow.
  struct rebuild_producer {
    std::uint64_t generation = 0;
  };

  using action = std::variant<produce_record, schedule_reproduce, answer_requester, tell_requester,
                              rebuild_producer, log_line>;
  using actions = std::vector<action>;

  // Counters the queue keeps itself; the shell publishes them.
  struct counters {
    std::uint64_t produced = 0;          // records acknowledged
    std::uint64_t produce_failures = 0;  // failed tries (each is produced again)
    std::int64_t failing = 0;            // records whose latest try failed
    std::uint64_t producer_rebuilds = 0;
    std::uint64_t partition_fallbacks = 0;  // records sent to the partitioner's choice
    std::uint64_t stale_reports = 0;        // of an older producer, or of a record not in flight
  };

  // The shell starts with a producer of generation 1.
  onward_queue() = default;

  // -- events ---------------------------------------------------------------------------------

  // A record to write. `id` names it in the actions (the shell keeps its requester under it);
  // 0 once stopped: nothing was taken.
  struct accepted {
    std::uint64_t id = 0;
    actions todo;
  };
  accepted on_request(onward_request r);

  // The producer of `generation` reported on record `id`, or refused it at produce. Acted on
  // only when it is about the record's latest produce: a report of an older producer is stale
  // (the rebuild produced the record again), so is one about a record acknowledged already.
  actions on_report(std::uint64_t id, std::uint64_t generation, const produce_error& e);

  // The timer of schedule_reproduce{id} fired.
  actions on_reproduce_due(std::uint64_t id);

  // The router stops (its producer goes with it): from now on nothing is produced, produced
  // again, rebuilt or answered. Records not acknowledged stay uncommitted at their source.
  actions on_stop();

  // -- observers ------------------------------------------------------------------------------

  [[nodiscard]] const onward* find(std::uint64_t id) const;
  // Records not yet acknowledged: in flight, or waiting to be produced again.
  [[nodiscard]] std::size_t outstanding() const { return pending_.size(); }
  [[nodiscard]] std::size_t in_flight() const;
  // The current producer's.
  [[nodiscard]] std::uint64_t generation() const { return generation_; }
  [[nodiscard]] bool stopping() const { return stopping_; }
  [[nodiscard]] const counters& counts() const { return counters_; }

 private:
  void produce(std::uint64_t id, onward& o, actions& out);
  void rebuild(actions& out);
  void acknowledged(std::map<std::uint64_t, onward>::iterator it, actions& out);
  void failed(std::uint64_t id, onward& o, const produce_error& e, actions& out);

  // Ordered by id: a rebuild produces the records again in the order they came.
  std::map<std::uint64_t, onward> pending_;
  // Counts producers: a report from an older one is stale and ignored, because the rebuild
  // already produced that record again.
  std::uint64_t generation_ = 1;
  std::uint64_t next_id_ = 1;
  bool stopping_ = false;
  counters counters_;
};

}  // namespace courier
