#include "actors/consumer_actor.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <utility>
#include <vector>

#include "actors/consumer_positions.hpp"
#include "actors/failure_log.hpp"
#include "core/flow/consumer_core.hpp"
#include "core/kafka/split_consumer.hpp"
#include "core/kafka/error.hpp"
#include "core/log/json_log.hpp"
#include "core/log/partition_list.hpp"
#include "core/retry/retry_headers.hpp"

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<consumer_actor_state>*;

// Declared ahead: the steps call each other.
std::string name_of(const partition_id& p);
void publish(self_ptr self);
void close_consumer(self_ptr self);
void commit_moved(self_ptr self, kafka::commit_mode mode);
void on_committed(self_ptr self, const std::vector<commit_outcome>& outcomes);
void check_drained(self_ptr self);
void poll_turn(self_ptr self);
void on_assigned(self_ptr self, const std::vector<assigned_partition>& ps);
kafka::revoke_timing on_revoked(self_ptr self, const std::vector<partition_id>& ps, bool lost);
void on_outcomes(self_ptr self, const outcome_batch& outcomes);
void on_awaiting_receipts(self_ptr self, const std::vector<record_position>& answered);
void refill_if_due(self_ptr self);
void start_drain(self_ptr self);
void on_blocked(self_ptr self, const onward_blocked& b);
std::vector<std::string> set_route_reason(self_ptr self, pause_reason reason, bool on);

// librdkafka must be polled now and then even when the route is full: rebalance callbacks
// run inside poll, and max.poll.interval.ms evicts a consumer that stops polling.
constexpr auto idle_poll_interval = std::chrono::milliseconds{500};
constexpr auto draining_poll_interval = std::chrono::milliseconds{50};

// The partitions' statuses go out when a pause changed and otherwise at most this often.
constexpr auto partition_publish_interval = std::chrono::seconds{1};

// Whether take() kept the record (in flight, waiting for room or for its due time), as against
// dropping it.
bool consumed(consumer_core::intake taken) {
  switch (taken) {
    case consumer_core::intake::dispatched:
    case consumer_core::intake::overflowed:
    case consumer_core::intake::gated:
    case consumer_core::intake::followed:
      return true;
    case consumer_core::intake::duplicate:
    case consumer_core::intake::not_assigned:
    case consumer_core::intake::already_done:
      return false;
  }
  return false;
}

// Returns how many records the poll brought.
std::size_t poll_into_core(self_ptr self, std::chrono::milliseconds timeout,
                           std::size_t max_records) {
  auto& st = self->state;
  auto records = st.kafka->poll(timeout, max_records);
  st.last_poll = self->clock().now();
  st.metrics->last_poll_steady_ms = steady_now_ms();
  ++st.metrics->actors[route_counter::polls];
  const auto now = now_ms(self);
  for (auto& r : records) {
    const bool source = st.settings.core.gated_topics.count(r.topic) == 0;
    const auto age_ms = std::max<std::int64_t>(now - r.timestamp_ms, 0);
    const auto taken = st.core->take(std::move(r), now);
    if (source && consumed(taken)) {
      st.metrics->fetch_seconds.observe(static_cast<double>(age_ms) / 1000.0);
    }
  }
  publish(self);
  return records.size();
}

void arm_idle_timer(self_ptr self, std::chrono::milliseconds interval) {
  auto& st = self->state;
  if (!st.idle_timer_armed) {
    st.idle_timer_armed = true;
    self->delayed_send(self, interval, poll_idle_atom::value);
  }
}

std::string name_of(const partition_id& p) {
  return p.topic + "[" + std::to_string(p.partition) + "]";
}

// After every event: the records it dispatched go out (one message), the metrics are updated,
// and the partitions' statuses when a pause changed (else at most once a second).
void publish(self_ptr self) {
  auto& st = self->state;
  st.io->flush();
  const auto& c = st.core->counts();
  for (std::size_t i = 0; i < c.size(); ++i) {
    st.metrics->consumer.at_index(i) = c.at_index(i);
  }
  st.metrics->gauges[route_gauge::paused_partitions] =
    static_cast<std::int64_t>(st.core->paused_count());
  const auto now = self->clock().now();
  if (st.core->pause_changes() != st.published_pause_changes ||
      now - st.partitions_published >= partition_publish_interval) {
    st.published_pause_changes = st.core->pause_changes();
    st.partitions_published = now;
    st.metrics->partitions.publish(st.core->statuses(now_ms(self)));
  }
}

// Commits every commit point, closes librdkafka's consumer (leaving the group) and quits.
void close_consumer(self_ptr self) {
  auto& st = self->state;
  if (st.closed) {
    return;
  }
  st.closed = true;
  st.drain->close(now_ms(self));
  st.io->flush();
  try {
    st.kafka->commit(st.core->commit_points(st.offset_map_budget, st.core->assignment()),
                     kafka::commit_mode::leaving);
  } catch (const kafka::kafka_error& e) {
    // Left to the next owner from the last commit: at-least-once allows it.
    ++st.metrics->actors[route_counter::commit_failures];
    log::warn("offset commit failed", {{"route", st.settings.route}, {"error", e.what()}});
  }
  // Counted before close(): it revokes the assignment, and the core forgets a revoked
  // partition's records.
  const auto in_flight_left = st.core->outstanding();
  const auto fetched_not_handed_out = st.core->in_flight() - in_flight_left;
  st.kafka->close();
  // Records fetched and never handed out (overflow, the due gate) are not committed either:
  // the partition's next owner fetches them again.
  log::info("consumer closed", {{"route", st.settings.route},
                                {"in_flight_left", in_flight_left},
                                {"fetched_not_handed_out", fetched_not_handed_out}});
  if (!st.final_commit_error.empty()) {
    // Not a clean stop: the partitions are fetched again from the last commit after a restart.
    // The actor's exit reason names it, and the stop report with it.
    throw std::runtime_error("the final offset commit failed: " + st.final_commit_error);
  }
  self->quit();
}

// Draining and nothing handed out any more: close.
void check_drained(self_ptr self) {
  auto& st = self->state;
  if (st.draining && st.core->outstanding() == 0) {
    close_consumer(self);
  }
}

// One turn of the poll loop. The loop keeps itself going while a refill is due; a full route
// stops it until outcomes free room for one (consumer_core::refill_due), with a rare idle poll
// in between (its record waits in the core's overflow).
void poll_turn(self_ptr self) {
  auto& st = self->state;
  // A source partition paused or resumed since the last turn: a resumed one is fetched anew,
  // and the wait for that is no starvation.
  if (st.core->source_pause_flips() != st.source_pause_flips_seen) {
    st.source_pause_flips_seen = st.core->source_pause_flips();
    st.starvation->on_source_paused(now_ms(self));
  }
  if (st.core->refill_due()) {
    st.core->release_overflow(now_ms(self));
    if (const auto free = st.core->room(); free > 0) {
      st.waiting_for_room = false;
      const auto started = std::chrono::steady_clock::now();
      const auto got = poll_into_core(self, std::chrono::milliseconds{50},
                                      std::min(free, st.settings.max_records_per_poll));
      // Room and nothing came: a wait for Kafka, unless courier paused a source partition itself.
      if (got == 0 && !st.draining && !st.core->source_paused()) {
        st.starvation->on_empty_poll(std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::steady_clock::now() - started)
                                       .count());
      }
      if (got == 0 && st.settings.empty_poll_wait.count() > 0) {
        self->delayed_send(self, st.settings.empty_poll_wait, poll_atom::value);
      } else {
        self->send(self, poll_atom::value);
      }
      return;
    }
    // The overflow filled the room: what it released goes out now, not with the next event
    // (there may be none: the records just released can be the only ones outstanding).
    publish(self);
  }
  // While draining every partition is paused, so polling takes no records: poll often then,
  // because the group waits for this member in a rebalance, and only poll() serves it.
  const auto interval = st.draining ? draining_poll_interval : idle_poll_interval;
  if (self->clock().now() - st.last_poll >= interval) {
    poll_into_core(self, std::chrono::milliseconds{0}, 1);
  }
  st.waiting_for_room = true;
  arm_idle_timer(self, interval);
}

// This instance's share of the route's quota follows its assignment of the source topic.
void tell_quota_share(self_ptr self) {
  auto& st = self->state;
  if (st.settings.source_partitions <= 0) {
    return;
  }
  const auto held = st.core->assignment();
  const auto assigned = std::count_if(held.begin(), held.end(), [&](const partition_id& p) {
    return p.topic == st.settings.source_topic;
  });
  st.io->quota_share(static_cast<std::int32_t>(assigned), st.settings.source_partitions);
}

// Commits the commit points (and offset maps) that moved since the last commit.
void commit_moved(self_ptr self, kafka::commit_mode mode) {
  auto& st = self->state;
  st.kafka->commit(st.core->commit_points(st.offset_map_budget), mode);
}

// The broker's answers to a commit.
void on_committed(self_ptr self, const std::vector<commit_outcome>& outcomes) {
  auto& st = self->state;
  std::size_t failed = 0;
  const commit_outcome* first_failure = nullptr;
  for (const auto& o : outcomes) {
    st.core->committed(o);
    if (o.metadata_dropped) {
      st.offset_map_budget /= 2;
      log::warn(
        "the broker refused a commit's offset map as too large (offset.metadata.max.bytes); "
        "committed without it, and the map is kept smaller from now on",
        {{"route", st.settings.route},
         {"partition", name_of(o.partition)},
         {"offset_map_budget", st.offset_map_budget}});
    } else if (!o.error.empty()) {
      // Stopping during a rebalance, the group may be a generation ahead: the partitions are
      // its next owner's from their last commit, which at-least-once allows. Anything else
      // refused is a stop that left them uncommitted for no reason the group gave.
      if (st.closed && st.final_commit_error.empty() && !o.superseded) {
        st.final_commit_error =
          name_of(o.partition) + " at " + std::to_string(o.offset) + ": " + o.error;
      }
      ++failed;
      first_failure = first_failure != nullptr ? first_failure : &o;
    }
  }
  if (failed > 0) {
    st.metrics->actors[route_counter::commit_failures] += failed;
    if (const auto line = st.commit_log.failed(failed, now_ms(self))) {
      log::warn("offset commit failed", {{"route", st.settings.route},
                                         {"partitions", line->failed},
                                         {"run_ms", line->run_ms},
                                         {"partition", name_of(first_failure->partition)},
                                         {"offset", first_failure->offset},
                                         {"error", first_failure->error}});
    }
  } else if (const auto line =
               outcomes.empty() ? std::nullopt : st.commit_log.succeeded(now_ms(self))) {
    log::info(
      "offset commits taken again",
      {{"route", st.settings.route}, {"failed_before", line->failed}, {"run_ms", line->run_ms}});
  }
}

// ordering "key": the assigned retry-tier partitions' records past their committed offsets
// enter the order books before anything is fetched.
void scan_tiers(self_ptr self, const std::vector<assigned_partition>& ps) {
  auto& st = self->state;
  if (!st.settings.scan_tiers) {
    return;
  }
  std::vector<assigned_partition> tiers;
  std::copy_if(ps.begin(), ps.end(), std::back_inserter(tiers), [&](const assigned_partition& a) {
    return st.settings.core.gated_topics.count(a.partition.topic) != 0;
  });
  if (tiers.empty()) {
    return;
  }
  const auto now = now_ms(self);
  std::size_t read = 0;
  st.settings.scan_tiers(tiers, [&](record&& r) {
    ++read;
    st.core->enter_scanned(r, now);
  });
  std::vector<partition_id> ids;
  ids.reserve(tiers.size());
  for (const auto& a : tiers) {
    ids.push_back(a.partition);
  }
  log::info("retry tiers read for key order", {{"route", st.settings.route},
                                               {"partitions", log::compact_partition_list(ids)},
                                               {"records", read}});
}

// librdkafka's rebalance callbacks (they run inside poll). The state's revoke_drain decides
// what a revoke waits for (core/flow/revoke_drain.hpp); consumer_revoke_io carries it out.
void on_assigned(self_ptr self, const std::vector<assigned_partition>& ps) {
  auto& st = self->state;
  st.drain->before_assign(ps, now_ms(self));
  st.core->assign(ps, now_ms(self));
  scan_tiers(self, ps);
  publish(self);
  tell_quota_share(self);
  st.metrics->assigned = true;
  std::vector<partition_id> ids;
  std::size_t with_map = 0;
  for (const auto& a : ps) {
    ids.push_back(a.partition);
    with_map += a.metadata.empty() ? 0 : 1;
  }
  log::info("partitions assigned", {{"route", st.settings.route},
                                    {"partitions", log::compact_partition_list(ids)},
                                    {"with_offset_map", with_map}});
  if (st.draining) {
    // A rebalance while draining: sitting on the new assignment until the drain deadline would
    // leave it without a consumer. Leave the group now (from a message, not inside this
    // callback, which runs within librdkafka's poll).
    log::info("assigned while draining: leaving the group at once",
              {{"route", st.settings.route}, {"partitions", log::compact_partition_list(ids)}});
    self->send(self, drain_deadline_atom::value);
  }
}

kafka::revoke_timing on_revoked(self_ptr self, const std::vector<partition_id>& ps, bool lost) {
  switch (self->state.drain->on_revoked(ps, lost, now_ms(self))) {
    case revoke_drain::answer::now:
      return kafka::revoke_timing::now;
    case revoke_drain::answer::later:
      return kafka::revoke_timing::later;
  }
  return kafka::revoke_timing::now;
}

// The delivery pool's outcomes: the core completes them, a revoke waiting may end, a commit may
// be due, a full route may refill, a drain may be done.
void on_outcomes(self_ptr self, const outcome_batch& outcomes) {
  auto& s = self->state;
  const auto now = now_ms(self);
  // Delivered, or acknowledged by the broker in a retry tier or the DLQ: done either way.
  for (const auto& o : outcomes) {
    s.core->complete(o.record.partition_of(), o.record.offset, o.end, now);
  }
  s.drain->on_outcomes(now);
  if (s.core->commit_due()) {
    commit_moved(self, kafka::commit_mode::async);
  }
  publish(self);
  refill_if_due(self);
  check_drained(self);
}

// The delivery pool's records answered 2xx whose receipts are on their way to the broker: they
// leave the route's bound (consumer_core::awaiting_receipt), so a full route may refill.
void on_awaiting_receipts(self_ptr self, const std::vector<record_position>& answered) {
  auto& s = self->state;
  const auto now = now_ms(self);
  for (const auto& r : answered) {
    s.core->awaiting_receipt(r.partition_of(), r.offset, now);
  }
  publish(self);
  refill_if_due(self);
}

void refill_if_due(self_ptr self) {
  auto& s = self->state;
  if (s.waiting_for_room && s.core->refill_due()) {
    s.waiting_for_room = false;
    self->send(self, poll_atom::value);
  }
}

// drain_atom: stop fetching (the shutdown reason), finish what is in flight up to drain_timeout,
// then close.
void start_drain(self_ptr self) {
  auto& s = self->state;
  if (s.draining) {
    return;
  }
  s.draining = true;
  s.metrics->draining = true;
  set_route_reason(self, pause_reason::shutdown, true);
  log::info("draining", {{"route", s.settings.route},
                         {"in_flight", s.core->outstanding()},
                         {"timeout_ms", s.settings.drain_timeout.count()}});
  self->delayed_send(self, s.settings.drain_timeout, drain_deadline_atom::value);
  check_drained(self);
}

// The delivery pool's notice that a record of the partition cannot be written onward, or can
// again.
void on_blocked(self_ptr self, const onward_blocked& b) {
  auto& s = self->state;
  const auto p = b.from.partition_of();
  if (!s.core->set_blocked(p, b.from.offset, b.blocked)) {
    return;
  }
  publish(self);
  if (b.blocked) {
    log::error(
      "partition held: one of its records cannot be written to a retry tier or "
      "the DLQ; it is produced again until the topic is fixed",
      {{"route", s.settings.route},
       {"partition", name_of(p)},
       {"offset", b.from.offset},
       {"destination", b.destination},
       {"reason", b.reason}});
  } else {
    log::info("partition resumed: its held record was written",
              {{"route", s.settings.route}, {"partition", name_of(p)}});
  }
}

// A route-wide pause reason on or off; the partitions whose reasons changed, compacted for the
// log (one entry a topic: "t[0-3,5]").
std::vector<std::string> set_route_reason(self_ptr self, pause_reason reason, bool on) {
  auto names = log::compact_partition_list(self->state.core->set_route_reason(reason, on));
  if (reason == pause_reason::operator_request) {
    // The route's flag, also while no partition is assigned (those assigned later take it).
    self->state.metrics->operator_paused = on;
  }
  publish(self);
  return names;
}

}  // namespace

void consumer_revoke_io::commit_final(const std::vector<partition_id>& ps) {
  auto& st = self_->state;
  try {
    st.kafka->commit(st.core->commit_points(st.offset_map_budget, ps), kafka::commit_mode::sync);
  } catch (const kafka::kafka_error& e) {
    ++st.metrics->actors[route_counter::commit_failures];
    log::warn("offset commit on revoke failed",
              {{"route", st.settings.route}, {"error", e.what()}});
  }
}

void consumer_revoke_io::complete_revoke() { self_->state.kafka->complete_revoke(); }

void consumer_revoke_io::arm_deadline(std::chrono::milliseconds after, std::uint64_t n) {
  self_->delayed_send(self_, after, revoke_deadline_atom::value, n);
}

void consumer_revoke_io::revoked(const revoke_report& r) {
  auto& st = self_->state;
  const auto partitions = log::compact_partition_list(r.partitions);
  switch (r.what) {
    case revoke_report::step::lost:
      log::warn("partitions lost", {{"route", st.settings.route}, {"partitions", partitions}});
      break;
    case revoke_report::step::given_up:
      if (r.waited_ms) {
        // What did not finish is the next owner's: its outcome, when it comes, changes no commit.
        log::info("partitions revoked", {{"route", st.settings.route},
                                         {"partitions", partitions},
                                         {"waited_ms", *r.waited_ms},
                                         {"left_in_flight", r.in_flight}});
      } else {
        log::info("partitions revoked", {{"route", st.settings.route}, {"partitions", partitions}});
      }
      break;
    case revoke_report::step::joined:
      // The other member's revoke (the source's or the tiers', split_consumer) still waits: this
      // one joins it and ends with it, by its deadline at the latest.
      log::info("partitions revoked: waiting for their records in flight",
                {{"route", st.settings.route},
                 {"partitions", partitions},
                 {"in_flight", r.in_flight},
                 {"joins_revoke_of_ms", r.waited_ms.value_or(0)}});
      return;
    case revoke_report::step::waiting:
      log::info("partitions revoked: waiting for their records in flight",
                {{"route", st.settings.route},
                 {"partitions", partitions},
                 {"in_flight", r.in_flight},
                 {"timeout_ms", st.settings.revoke_drain_timeout.count()}});
      return;
  }
  publish(self_);
  tell_quota_share(self_);
  if (st.draining && st.core->outstanding() == 0) {
    // Nothing left to finish: leave now rather than wait for the next assignment (from a
    // message: this may run within librdkafka's poll).
    self_->send(self_, drain_deadline_atom::value);
  }
}

std::unique_ptr<kafka::group_consumer> open_kafka_consumer(const kafka::consumer_settings& s,
                                                           kafka::consumer::callbacks cb) {
  return kafka::open_group_member(s, std::move(cb));
}

caf::behavior consumer_actor(self_ptr self, consumer_actor_settings settings, caf::actor delivery,
                             std::shared_ptr<route_metrics> metrics) {
  log_failures(self, "consumer", settings.route);
  auto& st = self->state;
  st.settings = std::move(settings);
  st.metrics = std::move(metrics);
  st.time.start(self->clock().now());
  st.io.emplace(self, std::move(delivery), st.time);
  st.core.emplace(st.settings.core, *st.io);
  st.revoke_io.emplace(self);
  st.drain.emplace(*st.core, *st.revoke_io, st.settings.revoke_drain_timeout);
  // Behind: more than twice the route's bound waits in Kafka (in flight and the prefetch
  // count in the lag too, up to about the bound when caught up).
  st.starvation.emplace(static_cast<std::int64_t>(2 * st.settings.core.max_in_flight));
  kafka::consumer::callbacks cb;
  cb.on_assigned = [self](const std::vector<assigned_partition>& ps) { on_assigned(self, ps); };
  cb.on_revoked = [self](const std::vector<partition_id>& ps, bool lost) {
    return on_revoked(self, ps, lost);
  };
  cb.on_committed = [self](const std::vector<commit_outcome>& outcomes) {
    on_committed(self, outcomes);
  };
  cb.on_error = [self](const std::string& message) {
    log::warn("kafka consumer error", {{"route", self->state.settings.route}, {"error", message}});
  };
  cb.on_broker_up = [self](bool up) {
    auto& m = *self->state.metrics;
    if (m.broker_reachable.exchange(up) != up) {
      log::warn(up ? "the broker is reachable again" : "the broker is unreachable",
                {{"route", self->state.settings.route}});
    }
  };
  cb.on_positions = [self](const std::vector<kafka::partition_position>& ps) {
    on_consumer_positions(self, ps);
  };
  st.kafka = st.settings.open_consumer(st.settings.kafka, std::move(cb));
  st.io->attach(st.kafka.get());
  self->send(self, poll_atom::value);
  self->delayed_send(self, st.settings.commit_interval, commit_atom::value);
  return {
    [=](poll_atom) {
      if (!self->state.closed) {
        poll_turn(self);
      }
    },
    [=](poll_idle_atom) {
      auto& s = self->state;
      s.idle_timer_armed = false;
      if (!s.closed && s.waiting_for_room) {
        poll_turn(self);
      }
    },
    [=](outcome_atom, const outcome_batch& outcomes) { on_outcomes(self, outcomes); },
    [=](receipt_atom, const answered_batch& answered) { on_awaiting_receipts(self, answered); },
    [=](pause_atom, pause_reason reason) { return set_route_reason(self, reason, true); },
    [=](resume_atom, pause_reason reason) { return set_route_reason(self, reason, false); },
    [=](drain_atom) { start_drain(self); },
    [=](drain_deadline_atom) { close_consumer(self); },
    [=](commit_atom) {
      if (!self->state.closed) {
        commit_moved(self, kafka::commit_mode::async);
        self->delayed_send(self, self->state.settings.commit_interval, commit_atom::value);
      }
    },
    [=](revoke_deadline_atom, std::uint64_t n) { self->state.drain->on_deadline(n, now_ms(self)); },
    [=](blocked_atom, const onward_blocked& b) { on_blocked(self, b); },
    [=](followers_atom, const record_position& at) {
      return followers_value(self->state.core->later_of_key(at));
    },
    [=](due_atom, const std::string& topic, std::int32_t partition, std::int64_t armed_for_ms) {
      if (!self->state.closed) {
        self->state.core->wake(partition_id{topic, partition}, now_ms(self), armed_for_ms);
        publish(self);
      }
    },
  };
}

}  // namespace courier::actors
