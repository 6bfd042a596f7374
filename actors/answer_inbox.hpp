#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/route_metrics.hpp"

namespace courier::actors {

// HTTP answers on their way from the client's io thread to the delivery pool. The io thread
// pushes under a mutex; one message (answers_atom) wakes the pool, whose handler takes
// everything that arrived by then. Under load one message carries many answers, instead of one
// message (and one scheduling of the pool) per answer.
//
// When the pool is woken is the inbox's rule: at once when the answers reach `wake_at`, else
// the first answer of a batch asks its pusher to come back a moment later (due()), so that a
// light load, whose answers come a few at a time, still wakes the pool once for many.
// wake_at 1 wakes it for the first answer.
class answer_inbox {
 public:
  enum class then { nothing, wake_now, wake_later };
  struct pushed {
    then next;
    std::uint64_t batch;  // for due(), with wake_later
  };

  pushed push(attempt_result r, std::size_t wake_at) {
    std::lock_guard<std::mutex> lock{mutex_};
    items_.push_back(std::move(r));
    if (woken_) {
      return {then::nothing, batch_};
    }
    if (items_.size() >= wake_at) {
      woken_ = true;
      return {then::wake_now, batch_};
    }
    return {items_.size() == 1 ? then::wake_later : then::nothing, batch_};
  }

  // The moment after a wake_later: true when the caller is to wake the pool now (that batch is
  // still waiting and nobody woke the pool for it).
  bool due(std::uint64_t batch) {
    std::lock_guard<std::mutex> lock{mutex_};
    if (batch != batch_ || woken_ || items_.empty()) {
      return false;
    }
    woken_ = true;
    return true;
  }

  // Everything that arrived, into `taken` (emptied first). The two vectors trade places, so
  // each keeps its capacity: a burst is not pushed into a vector grown afresh from nothing.
  void take(std::vector<attempt_result>& taken) {
    taken.clear();
    std::lock_guard<std::mutex> lock{mutex_};
    items_.swap(taken);
    woken_ = false;
    ++batch_;
  }

 private:
  std::mutex mutex_;
  std::vector<attempt_result> items_;
  bool woken_ = false;       // the pool was sent answers_atom and has not taken yet
  std::uint64_t batch_ = 0;  // taken batches so far
};

// What an attempt's completion on the io thread needs of its delivery pool, shared once per
// pool: each attempt's callback then copies one shared pointer, not an actor handle and two.
// The handle is weak (the pool's state holds this), locked only to send the wake-up.
struct answer_sink {
  caf::weak_actor_ptr pool;
  std::shared_ptr<route_metrics> metrics;
  answer_inbox inbox;
  std::size_t wake_at = 1;              // answers that wake the pool at once
  std::chrono::microseconds gather{0};  // how long fewer wait for more (on the io thread)

  void wake() const {
    if (const auto handle = caf::actor_cast<caf::actor>(pool)) {
      caf::anon_send(handle, answers_atom::value);
    }
  }
};

// From an attempt's completion: into the inbox, and the pool woken as the inbox's rule says.
// A later wake-up waits on the calling io thread's own timer (http::defer_on_this_io_thread);
// on any other thread it is done at once.
void push_answer(const std::shared_ptr<answer_sink>& sink, attempt_result r);

}  // namespace courier::actors
