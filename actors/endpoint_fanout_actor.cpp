#include "actors/endpoint_fanout_actor.hpp"

#include <cstddef>
#include <utility>

#include "actors/failure_log.hpp"

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<endpoint_fanout_state>*;

void take(self_ptr self, record_batch& records) {
  auto& st = self->state;
  st.consumer = caf::actor_cast<caf::actor>(self->current_sender());
  auto d = st.fanout->on_records(std::move(records));
  for (std::size_t i = 0; i < d.deliver.size(); ++i) {
    if (!d.deliver[i].empty()) {
      self->send(st.pools[i], deliver_atom::value, std::move(d.deliver[i]));
    }
  }
  if (!d.dead_letter.empty()) {
    self->send(st.pools.front(), dead_letter_atom::value, unknown_endpoint_atom::value,
               std::move(d.dead_letter));
  }
  if (!d.done.empty()) {
    self->send(st.consumer, outcome_atom::value, std::move(d.done));
  }
}

// The records whose copies were all answered or finished, some awaiting their receipts: told to
// the consumer before any outcome of the same event.
void tell_answered(self_ptr self) {
  auto& st = self->state;
  auto answered = st.fanout->take_answered();
  if (!answered.empty() && st.consumer) {
    self->send(st.consumer, receipt_atom::value, std::move(answered));
  }
}

void join(self_ptr self, const outcome_batch& outcomes) {
  auto& st = self->state;
  outcome_batch joined;
  for (const auto& o : outcomes) {
    if (auto j = st.fanout->on_outcome(o)) {
      joined.push_back(std::move(*j));
    }
  }
  tell_answered(self);
  if (!joined.empty() && st.consumer) {
    self->send(st.consumer, outcome_atom::value, std::move(joined));
  }
}

}  // namespace

caf::behavior endpoint_fanout_actor(self_ptr self, std::string route,
                                    routing::endpoint_fanout fanout,
                                    std::vector<caf::actor> pools) {
  log_failures(self, "endpoint_fanout", route);
  self->state.route = std::move(route);
  self->state.fanout.emplace(std::move(fanout));
  self->state.pools = std::move(pools);
  return {
    [=](deliver_atom, record_batch& records) { take(self, records); },
    [=](outcome_atom, const outcome_batch& outcomes) { join(self, outcomes); },
    [=](receipt_atom, const answered_batch& answered) {
      for (const auto& at : answered) {
        self->state.fanout->on_answered(at);
      }
      tell_answered(self);
    },
    [=](expedite_atom, const record_position& at) {
      for (const auto& p : self->state.pools) {
        self->send(p, expedite_atom::value, at);
      }
    },
    [=](share_atom, std::int32_t assigned, std::int32_t topic_partitions) {
      for (const auto& p : self->state.pools) {
        self->send(p, share_atom::value, assigned, topic_partitions);
      }
    },
    [=](blocked_atom, const onward_blocked& b) {
      if (self->state.consumer) {
        self->send(self->state.consumer, blocked_atom::value, b);
      }
    },
  };
}

}  // namespace courier::actors
