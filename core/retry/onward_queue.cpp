#include "core/retry/onward_queue.hpp"

#include <algorithm>

namespace courier {

std::chrono::milliseconds onward_backoff(int failures) {
  const auto ms = std::min<std::int64_t>(5000, 100LL << std::clamp(failures, 0, 6));
  return std::chrono::milliseconds{ms};
}

// -- events -----------------------------------------------------------------------------------

onward_queue::accepted onward_queue::on_request(onward_request r) {
  accepted out;
  if (stopping_) {
    return out;
  }
  out.id = next_id_++;
  auto& o = pending_.emplace(out.id, onward{}).first->second;
  o.request = std::move(r);
  produce(out.id, o, out.todo);
  return out;
}

// Distinct by role: the record's id and the producer generation of the report.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
onward_queue::actions onward_queue::on_report(std::uint64_t id, std::uint64_t generation,
                                              const produce_error& e) {
  actions out;
  if (stopping_) {
    return out;
  }
  auto it = pending_.find(id);
  if (it == pending_.end() || !it->second.in_flight || it->second.generation != generation) {
    ++counters_.stale_reports;  // acknowledged already, or of a producer since rebuilt
    return out;
  }
  auto& o = it->second;
  switch (e.failure) {
    case produce_failure::none:
      acknowledged(it, out);
      return out;
    case produce_failure::unknown_partition:
      if (!o.any_partition) {
        // The destination has fewer partitions than the source: the partitioner maps the key
        // to one that exists.
        o.in_flight = false;
        o.any_partition = true;
        ++counters_.partition_fallbacks;
        out.emplace_back(log_line{
            log_level::warn,
            "retry/DLQ topic lacks the source's partition; the partitioner picks one by key",
            {{"topic", o.request.topic}, {"partition", std::int64_t{o.request.partition}}}});
        produce(id, o, out);
        return out;
      }
      break;  // even the partitioner's choice is unknown: a failure like any other
    case produce_failure::producer_fatal:
      // The record never reached the producer; the rebuild produces it again with every other
      // record in flight (it still counts as in flight).
      out.emplace_back(log_line{log_level::error,
                                "retry router producer failed fatally; rebuilding it",
                                {{"error", e.reason}}});
      rebuild(out);
      return out;
    case produce_failure::failed:
      break;
  }
  failed(id, o, e, out);
  return out;
}

onward_queue::actions onward_queue::on_reproduce_due(std::uint64_t id) {
  actions out;
  if (stopping_) {
    return out;
  }
  auto it = pending_.find(id);
  if (it == pending_.end() || it->second.in_flight) {
    return out;  // acknowledged, or already with the current producer
  }
  produce(id, it->second, out);
  return out;
}

onward_queue::actions onward_queue::on_stop() {
  actions out;
  if (stopping_) {
    return out;
  }
  stopping_ = true;
  if (!pending_.empty()) {
    out.emplace_back(
        log_line{log_level::info,
                 "retry router stops with records not acknowledged; they stay uncommitted at "
                 "their source",
                 {{"outstanding", static_cast<std::int64_t>(pending_.size())},
                  {"in_flight", static_cast<std::int64_t>(in_flight())}}});
  }
  return out;
}

// -- observers --------------------------------------------------------------------------------

const onward_queue::onward* onward_queue::find(std::uint64_t id) const {
  auto it = pending_.find(id);
  return it == pending_.end() ? nullptr : &it->second;
}

std::size_t onward_queue::in_flight() const {
  return static_cast<std::size_t>(std::count_if(
      pending_.begin(), pending_.end(), [](const auto& entry) { return entry.second.in_flight; }));
}

// -- decisions --------------------------------------------------------------------------------

void onward_queue::produce(std::uint64_t id, onward& o, actions& out) {
  o.in_flight = true;
  o.generation = generation_;
  std::optional<std::int32_t> partition;
  if (!o.any_partition) {
    partition = o.request.partition;
  }
  out.emplace_back(produce_record{id, partition, generation_});
}

// A new producer; every record handed to the old one and not yet acknowledged is produced
// again (none is left waiting for a report that may never come). A record waiting for its
// backoff waits on: its timer produces it with the new producer.
void onward_queue::rebuild(actions& out) {
  ++counters_.producer_rebuilds;
  out.emplace_back(log_line{log_level::error,
                            "retry router producer rebuilt after a fatal error; every record not "
                            "yet acknowledged is produced again",
                            {{"outstanding", static_cast<std::int64_t>(pending_.size())}}});
  ++generation_;
  out.emplace_back(rebuild_producer{generation_});
  for (auto& [id, o] : pending_) {
    if (o.in_flight) {
      produce(id, o, out);
    }
  }
}

void onward_queue::acknowledged(std::map<std::uint64_t, onward>::iterator it, actions& out) {
  const auto id = it->first;
  auto& o = it->second;
  ++counters_.produced;
  if (o.blocked) {
    --counters_.failing;
    out.emplace_back(log_line{log_level::info,
                              "a retry/DLQ record that failed is through; its partition resumes",
                              {{"topic", o.request.topic},
                               {"from", o.request.from.topic},
                               {"from_partition", std::int64_t{o.request.from.partition}},
                               {"failures", std::int64_t{o.failures}}}});
    out.emplace_back(tell_requester{id, false, {}});
  }
  out.emplace_back(answer_requester{id});
  pending_.erase(it);
}

void onward_queue::failed(std::uint64_t id, onward& o, const produce_error& e, actions& out) {
  o.in_flight = false;
  ++o.failures;
  ++counters_.produce_failures;
  const auto delay = onward_backoff(o.failures);
  out.emplace_back(
      log_line{log_level::error,
               "producing a retry/DLQ record failed; it stays uncommitted and is produced again",
               {{"topic", o.request.topic},
                // -1: the partitioner's choice, as librdkafka writes it
                {"partition", std::int64_t{o.any_partition ? -1 : o.request.partition}},
                {"error", e.name},
                {"failures", std::int64_t{o.failures}},
                {"retry_in_ms", static_cast<std::int64_t>(delay.count())}}});
  if (!o.blocked) {
    // Its partition is held meanwhile (the consumer pauses it): other partitions keep flowing,
    // and once the operator fixes the topic the next try gets through and it resumes.
    o.blocked = true;
    ++counters_.failing;
    out.emplace_back(tell_requester{id, true, e.reason});
  }
  if (e.producer_fatal) {
    rebuild(out);
  }
  out.emplace_back(schedule_reproduce{id, delay});
}

}  // namespace courier
