#include "actors/retry_router.hpp"

#include "actors/failure_log.hpp"

#include <deque>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>
#include <variant>

#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"
#include "core/log/log_line_writer.hpp"
#include "core/retry/retry_headers.hpp"

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<retry_router_state>*;
using queue = onward_queue;

// A producer for the router: it learns the onward topics before its first record (a topic
// the broker did not describe is logged; its first record waits for librdkafka's lookup).
std::unique_ptr<kafka::producer> make_producer(const retry_router_state& st) {
  constexpr std::chrono::milliseconds learn_timeout{5000};
  auto made = std::make_unique<kafka::producer>(st.bootstrap, st.properties);
  const auto unknown = made->learn_topics(st.topics, learn_timeout);
  if (!unknown.empty()) {
    std::string names;
    for (const auto& t : unknown) {
      names += (names.empty() ? "" : ",") + t;
    }
    log::write(log_line{log_level::warn,
                        "onward topics not described by the broker",
                        {{"topics", names}, {"timeout_ms", std::int64_t{learn_timeout.count()}}},
                        /*per_record=*/false});
  }
  return made;
}

constexpr auto poll_interval = std::chrono::milliseconds{20};

bool producer_failed(kafka::producer& p) {
  return rd_kafka_fatal_error(p.raw(), nullptr, 0) != RD_KAFKA_RESP_ERR_NO_ERROR;
}

// What the queue needs to know of a producer's error; `producer` tells whether it is left
// with a fatal error.
produce_error error_of(rd_kafka_resp_err_t err, kafka::producer& producer) {
  produce_error e;
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    return e;
  }
  e.failure = err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION ? produce_failure::unknown_partition
                                                          : produce_failure::failed;
  e.name = rd_kafka_err2name(err);
  e.reason = e.name + ": " + rd_kafka_err2str(err);
  e.producer_fatal = producer_failed(producer);
  return e;
}

// A record the producer refused at produce (it never queued it, so no report comes).
produce_error refusal_of(const kafka::kafka_error& refused, kafka::producer& producer) {
  if (refused.code() != RD_KAFKA_RESP_ERR__FATAL) {
    return error_of(refused.code(), producer);
  }
  produce_error e;
  e.failure = produce_failure::producer_fatal;
  e.name = rd_kafka_err2name(refused.code());
  e.reason = refused.what();
  return e;
}

void publish(retry_router_state& st) {
  const auto& c = st.queue.counts();
  st.metrics->produced = c.produced;
  st.metrics->produce_failures = c.produce_failures;
  st.metrics->records_failing = c.failing;
  st.metrics->producer_rebuilds = c.producer_rebuilds;
}

// Carries out one action. A refusal at produce is the queue's next event at once: its actions
// go behind those already decided, which are carried out first, in order (each one was decided
// for the producer it meets).
struct shell {
  self_ptr self;
  std::deque<queue::action>& todo;

  void operator()(queue::produce_record& a) const {
    auto& st = self->state;
    auto it = st.pending.find(a.id);
    if (it == st.pending.end()) {
      return;
    }
    const auto& req = it->second.request.produce;
    std::optional<std::string_view> key;
    if (req.key) {
      key = *req.key;
    }
    try {
      // The report runs inside producer->poll() on this actor's own thread: it leaves the report
      // for the poll's caller (take_reports). It holds the list, not this actor: a producer
      // destroyed with records still queued or in flight (a rebuild, or shutdown) never calls
      // their reports, and a handle in one would keep this actor alive for good.
      st.producer->produce(req.topic, a.partition.value_or(RD_KAFKA_PARTITION_UA), key,
                           req.value.view(), req.headers, req.timestamp_ms,
                           [reports = st.reports, id = a.id, generation = a.generation](
                             rd_kafka_resp_err_t err, std::int32_t, std::int64_t) {
                             reports->push_back(retry_router_state::report{id, generation, err});
                           });
    } catch (const kafka::kafka_error& e) {
      auto more = st.queue.on_report(a.id, a.generation, refusal_of(e, *st.producer));
      publish(st);
      todo.insert(todo.end(), std::make_move_iterator(more.begin()),
                  std::make_move_iterator(more.end()));
    }
  }

  void operator()(queue::schedule_reproduce& a) const {
    self->delayed_send(self, a.delay, reproduce_atom::value, a.id);
  }

  void operator()(queue::answer_requester& a) const {
    auto& st = self->state;
    auto it = st.pending.find(a.id);
    if (it == st.pending.end()) {
      return;
    }
    const auto& req = it->second.request.produce;
    st.metrics->count_produced(
      req.topic, std::string{find_header(req.headers, error_class_header).value_or("unknown")});
    auto& w = it->second;
    if (!w.requester) {  // an anonymous request: nobody to tell
      st.pending.erase(it);
      return;
    }
    batch_for(st.acked, w.requester).push_back(w.request.tag);
    st.pending.erase(it);
  }

  void operator()(queue::tell_requester& a) const {
    auto& st = self->state;
    auto it = st.pending.find(a.id);
    if (it == st.pending.end() || !it->second.requester) {
      return;
    }
    const auto& r = it->second.request;
    caf::anon_send(it->second.requester, blocked_atom::value,
                   onward_blocked{r.from, a.blocked, r.produce.topic, std::move(a.reason), r.tag});
  }

  void operator()(queue::rebuild_producer&) const {
    // The old producer goes after the new one is made: the reports it serves as it goes carry
    // its generation and are stale.
    auto& st = self->state;
    st.producer = make_producer(st);
  }

  void operator()(queue::log_line& a) const { log::write(a); }
};

// The metrics first, as the queue counted before it decided to answer anyone: a requester that
// reads them once answered sees what led to its answer.
void carry_out(self_ptr self, queue::actions decided) {
  publish(self->state);
  std::deque<queue::action> todo{std::make_move_iterator(decided.begin()),
                                 std::make_move_iterator(decided.end())};
  while (!todo.empty()) {
    auto a = std::move(todo.front());
    todo.pop_front();
    std::visit(shell{self, todo}, a);
  }
  auto& st = self->state;
  for (auto& [requester, tags] : st.acked) {
    self->send(requester, onward_acked_atom::value, std::move(tags));
  }
  st.acked.clear();
}

// The reports the last poll left (in the order the producer made them).
void take_reports(self_ptr self) {
  auto& st = self->state;
  auto reports = std::move(*st.reports);
  st.reports->clear();
  if (reports.empty()) {
    return;
  }
  queue::actions todo;
  for (const auto& r : reports) {
    auto more = st.queue.on_report(r.id, r.generation, error_of(r.err, *st.producer));
    todo.insert(todo.end(), std::make_move_iterator(more.begin()),
                std::make_move_iterator(more.end()));
  }
  carry_out(self, std::move(todo));
}

}  // namespace

caf::behavior retry_router(self_ptr self, std::string bootstrap,
                           const std::map<std::string, std::string>& properties,
                           std::vector<std::string> onward_topics,
                           std::shared_ptr<router_metrics> metrics) {
  log_failures(self, "retry_router", "");
  auto& st = self->state;
  st.metrics = std::move(metrics);
  st.bootstrap = std::move(bootstrap);
  // The properties it shares with the consumers: a consumer's would only make it warn.
  st.properties = kafka::for_client(RD_KAFKA_PRODUCER, properties);
  st.topics = std::move(onward_topics);
  st.producer = make_producer(st);  // generation 1
  self->set_exit_handler([self](caf::exit_msg& msg) {
    if (msg.reason) {
      carry_out(self, self->state.queue.on_stop());
    }
    caf::scheduled_actor::default_exit_handler(self, msg);
  });
  self->send(self, poll_atom::value);
  return {
    [=](route_atom, std::vector<onward_record>& batch) {
      auto& s = self->state;
      const auto requester = caf::actor_cast<caf::actor>(self->current_sender());
      queue::actions todo;
      for (auto& req : batch) {
        auto accepted =
          s.queue.on_request({req.produce.topic, req.produce.partition, req.from.partition_of()});
        if (accepted.id == 0) {
          break;  // stopping: the requester hears of it when this actor is down
        }
        s.pending.emplace(accepted.id, retry_router_state::waiting{std::move(req), requester});
        todo.insert(todo.end(), std::make_move_iterator(accepted.todo.begin()),
                    std::make_move_iterator(accepted.todo.end()));
      }
      carry_out(self, std::move(todo));
    },
    [=](poll_atom) {
      auto& s = self->state;
      const bool idle = s.queue.outstanding() == 0;
      s.producer->poll(idle ? std::chrono::milliseconds{0} : poll_interval);
      take_reports(self);
      if (idle) {
        // Nothing awaits a report: idle instead of spinning.
        self->delayed_send(self, poll_interval, poll_atom::value);
      } else {
        self->send(self, poll_atom::value);
      }
    },
    [=](reproduce_atom, std::uint64_t id) {
      carry_out(self, self->state.queue.on_reproduce_due(id));
    },
  };
}

}  // namespace courier::actors
