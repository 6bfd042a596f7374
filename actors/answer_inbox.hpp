#pragma once

#include <atomic>
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
#include "core/delivery/attempt_policy.hpp"

namespace courier::actors {

// HTTP answers on their way from the client's io thread to the delivery pool. The io thread
// pushes under a mutex; one message (answers_atom) wakes the pool, whose handler takes
// everything that arrived by then. Under load one message carries many answers, instead of one
// message (and one scheduling of the pool) per answer.
//
// When the pool is woken is the inbox's rule: at once when the answers reach `wake_at` or when
// no attempt the pool posted (expect()) is still unanswered, else the first answer of a batch
// asks its pusher to come back a moment later (due()): a paced load, whose answers come a few at
// a time while more are on their way, still wakes the pool once for many, and no answer waits
// for others that are not coming (a route whose records all came back, a backlog refilled in
// small batches). wake_at 1 wakes it for the first answer.
class answer_inbox {
 public:
  enum class then { nothing, wake_now, wake_later };
  struct pushed {
    then next;
    std::uint64_t batch;  // for due(), with wake_later
  };

  // An attempt posted: its answer will come through push(). Before the post, so that the
  // answer's push never comes first.
  void expect() { unanswered_.fetch_add(1, std::memory_order_relaxed); }

  pushed push(attempt_answer r, std::size_t wake_at) {
    // An answer nobody expect()ed (a test's) counts as the last too.
    const bool last = unanswered_.fetch_sub(1, std::memory_order_relaxed) <= 1;
    std::lock_guard<std::mutex> lock{mutex_};
    items_.push_back(std::move(r));
    if (woken_) {
      return {then::nothing, batch_};
    }
    if (items_.size() >= wake_at || last) {
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
  void take(std::vector<attempt_answer>& taken) {
    taken.clear();
    std::lock_guard<std::mutex> lock{mutex_};
    items_.swap(taken);
    woken_ = false;
    ++batch_;
  }

 private:
  std::mutex mutex_;
  std::vector<attempt_answer> items_;
  bool woken_ = false;                       // the pool was sent answers_atom and has not taken yet
  std::uint64_t batch_ = 0;                  // taken batches so far
  std::atomic<std::int64_t> unanswered_{0};  // attempts posted and not pushed yet
};

// While answers gather (http.gather_answers), this many wake the pool without waiting longer:
// enough that a take amortises the pool's wake-up, few enough to hold no slot for long under a
// heavy load, whose answers arrive a few tens a millisecond (docs/performance.md).
inline constexpr std::size_t answers_that_wake_the_pool = 16;

// What an attempt's completion on the io thread needs of its delivery pool, shared once per
// pool: each attempt's callback then copies one shared pointer, not an actor handle and two.
// The handle is weak (the pool's state holds this), locked only to send the wake-up.
struct answer_sink {
  caf::weak_actor_ptr pool;
  std::shared_ptr<route_metrics> metrics;
  answer_inbox inbox;
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
void push_answer(const std::shared_ptr<answer_sink>& sink, attempt_answer r);

}  // namespace courier::actors
