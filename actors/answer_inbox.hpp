#pragma once

#include <mutex>
#include <utility>
#include <vector>

#include "actors/messages.hpp"

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

  std::vector<attempt_result> take() {
    std::lock_guard<std::mutex> lock{mutex_};
    return std::exchange(items_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<attempt_result> items_;
};

}  // namespace courier::actors
