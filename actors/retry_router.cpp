#include "actors/retry_router.hpp"

#include "actors/failure_log.hpp"

#include <algorithm>

#include "core/log/json_log.hpp"
#include "core/retry/retry_headers.hpp"
#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<retry_router_state>*;

constexpr auto poll_interval = std::chrono::milliseconds{20};

std::chrono::milliseconds backoff_after(int failures) {
  const auto ms = std::min<std::int64_t>(5000, 100LL << std::min(failures, 6));
  return std::chrono::milliseconds{ms};
}

// A new producer; every record handed to the old one and not yet acknowledged is produced
// again (none is left waiting for a report that may never come).
void rebuild_producer(self_ptr self) {
  auto& st = self->state;
  if (st.producer) {
    ++st.metrics->producer_rebuilds;
    log::error(
      "retry router producer rebuilt after a fatal error; every record not yet "
      "acknowledged is produced again",
      {{"outstanding", st.pending.size()}});
  }
  st.producer = std::make_unique<kafka::producer>(st.bootstrap, st.properties);
  ++st.generation;
  for (auto& [id, w] : st.pending) {
    if (w.in_flight) {
      w.in_flight = false;
      self->send(self, reproduce_atom::value, id);
    }
  }
}

void produce(self_ptr self, std::uint64_t id) {
  auto& st = self->state;
  auto it = st.pending.find(id);
  if (it == st.pending.end() || it->second.in_flight) {
    return;  // acknowledged, or already with the current producer
  }
  auto& w = it->second;
  w.in_flight = true;
  w.generation = st.generation;
  const auto generation = st.generation;
  const auto& req = w.request;
  std::optional<std::string_view> key;
  if (req.has_key) {
    key = req.key;
  }
  auto handle = caf::actor_cast<caf::actor>(self);
  try {
    // The report holds this actor weakly: a producer destroyed with records still queued or in
    // flight (a rebuild, or shutdown) never calls their reports, and a strong handle in one
    // would keep this actor alive for good (the actor system would wait for it forever).
    st.producer->produce(req.topic, req.partition, key, req.value.view(), req.headers,
                         req.timestamp_ms,
                         [addr = self->address(), id, generation](rd_kafka_resp_err_t err,
                                                                  std::int32_t, std::int64_t) {
                           // Runs inside producer->poll() on this actor's own thread.
                           caf::anon_send(caf::actor_cast<caf::actor>(addr), produced_atom::value,
                                          id, generation, static_cast<std::int32_t>(err));
                         });
  } catch (const kafka::kafka_error& e) {
    if (e.code() == RD_KAFKA_RESP_ERR__FATAL) {
      log::error("retry router producer failed fatally; rebuilding it", {{"error", e.what()}});
      rebuild_producer(self);  // produces this record again, with every other one in flight
      return;
    }
    caf::anon_send(handle, produced_atom::value, id, generation,
                   static_cast<std::int32_t>(e.code()));
  }
}

void tell_requester(const retry_router_state::waiting& w, bool blocked, const std::string& reason) {
  if (!w.requester) {
    return;
  }
  const auto& r = w.request;
  caf::anon_send(w.requester, blocked_atom::value,
                 produce_blocked{r.from_topic, r.from_partition, r.from_offset, blocked, r.topic,
                                 reason, r.tag});
}

void on_produced(self_ptr self, std::uint64_t id, std::uint64_t generation,
                 rd_kafka_resp_err_t err) {
  auto& st = self->state;
  auto it = st.pending.find(id);
  if (it == st.pending.end() || generation != it->second.generation || !it->second.in_flight) {
    return;  // acknowledged already, or a stale report of a producer since rebuilt
  }
  auto& w = it->second;
  w.in_flight = false;
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    ++st.metrics->produced;
    st.metrics->count_produced(
      w.request.topic,
      std::string{find_header(w.request.headers, error_class_header).value_or("unknown")});
    if (w.blocked) {
      --st.metrics->records_failing;
      log::info("a retry/DLQ record that failed is through; its partition resumes",
                {{"topic", w.request.topic},
                 {"from", w.request.from_topic},
                 {"from_partition", w.request.from_partition},
                 {"failures", w.failures}});
      tell_requester(w, false, {});
    }
    w.promise.deliver(true);
    st.pending.erase(it);
    return;
  }
  if (err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION && w.request.partition != RD_KAFKA_PARTITION_UA) {
    // The destination has fewer partitions than the source: the partitioner maps the key to
    // one that exists (the same key always to the same partition).
    log::warn("retry/DLQ topic lacks the source's partition; the partitioner picks one by key",
              {{"topic", w.request.topic}, {"partition", w.request.partition}});
    w.request.partition = RD_KAFKA_PARTITION_UA;
    produce(self, id);
    return;
  }
  ++w.failures;
  ++st.metrics->produce_failures;
  const auto delay = backoff_after(w.failures);
  log::error("producing a retry/DLQ record failed; it stays uncommitted and is produced again",
             {{"topic", w.request.topic},
              {"partition", w.request.partition},
              {"error", rd_kafka_err2name(err)},
              {"failures", w.failures},
              {"retry_in_ms", delay.count()}});
  if (!w.blocked) {
    // Its partition is held meanwhile (the consumer pauses it): other partitions keep flowing,
    // and once the operator fixes the topic the next try gets through and it resumes.
    w.blocked = true;
    ++st.metrics->records_failing;
    tell_requester(w, true, std::string{rd_kafka_err2name(err)} + ": " + rd_kafka_err2str(err));
  }
  if (rd_kafka_fatal_error(st.producer->raw(), nullptr, 0) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    rebuild_producer(self);
  }
  self->delayed_send(self, delay, reproduce_atom::value, id);
}

}  // namespace

caf::behavior retry_router(self_ptr self, std::string bootstrap,
                           const std::map<std::string, std::string>& properties,
                           std::shared_ptr<router_metrics> metrics) {
  log_failures(self, "retry_router", "");
  auto& st = self->state;
  st.metrics = std::move(metrics);
  st.bootstrap = std::move(bootstrap);
  // The properties it shares with the consumers: a consumer's would only make it warn.
  st.properties = kafka::for_client(RD_KAFKA_PRODUCER, properties);
  rebuild_producer(self);
  self->send(self, poll_atom::value);
  return {
    [=](route_atom, dispatch_request& req) -> caf::result<bool> {
      auto& s = self->state;
      const auto id = s.next_id++;
      retry_router_state::waiting w;
      // Before the promise: making it moves the sender out of the current message.
      w.requester = caf::actor_cast<caf::actor>(self->current_sender());
      auto promise = self->make_response_promise<bool>();
      w.request = std::move(req);
      w.promise = promise;
      s.pending.emplace(id, std::move(w));
      produce(self, id);
      return promise;
    },
    [=](poll_atom) {
      auto& s = self->state;
      s.producer->poll(s.pending.empty() ? std::chrono::milliseconds{0} : poll_interval);
      if (s.pending.empty()) {
        // Nothing awaits a report: idle instead of spinning.
        self->delayed_send(self, poll_interval, poll_atom::value);
      } else {
        self->send(self, poll_atom::value);
      }
    },
    [=](produced_atom, std::uint64_t id, std::uint64_t generation, std::int32_t err) {
      on_produced(self, id, generation, static_cast<rd_kafka_resp_err_t>(err));
    },
    [=](reproduce_atom, std::uint64_t id) { produce(self, id); },
  };
}

}  // namespace courier::actors
