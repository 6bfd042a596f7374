#pragma once

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/route_metrics.hpp"

namespace courier::actors {

// HTTP answers on their way from the client's io thread to the delivery pool. The io thread
// pushes under a mutex; the push that finds the inbox empty wakes the pool with one message
// (answers_atom), whose handler takes everything that arrived by then. Under load one message
// carries many answers, instead of one message (and one scheduling of the pool) per answer.
class answer_inbox {
 public:
  // True when the inbox was empty: the caller sends the wake-up message.
  bool push(attempt_result r) {
    std::lock_guard<std::mutex> lock{mutex_};
    const bool was_empty = items_.empty();
    items_.push_back(std::move(r));
    return was_empty;
  }

  // Everything that arrived, into `taken` (emptied first). The two vectors trade places, so
  // each keeps its capacity: a burst is not pushed into a vector grown afresh from nothing.
  void take(std::vector<attempt_result>& taken) {
    taken.clear();
    std::lock_guard<std::mutex> lock{mutex_};
    items_.swap(taken);
  }

 private:
  std::mutex mutex_;
  std::vector<attempt_result> items_;
};

// What an attempt's completion on the io thread needs of its delivery pool, shared once per
// pool: each attempt's callback then copies one shared pointer, not an actor handle and two.
// The handle is weak (the pool's state holds this), locked only to send the wake-up.
struct answer_sink {
  caf::weak_actor_ptr pool;
  std::shared_ptr<route_metrics> metrics;
  answer_inbox inbox;

  void push(attempt_result r) {
    if (inbox.push(std::move(r))) {
      if (const auto handle = caf::actor_cast<caf::actor>(pool)) {
        caf::anon_send(handle, answers_atom::value);
      }
    }
  }
};

}  // namespace courier::actors
