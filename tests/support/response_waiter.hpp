#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "core/http/client.hpp"

namespace courier::http::testing {

// Collects on_done results from io threads so a test can wait for them with a deadline
// instead of sleeping.
class response_waiter {
 public:
  std::function<void(response)> callback() {
    return [this](response r) {
      const std::lock_guard<std::mutex> lock(mutex_);
      responses_.push_back(std::move(r));
      changed_.notify_all();
    };
  }

  // True once `count` responses arrived, false if the deadline passed first.
  bool wait_for(std::size_t count, std::chrono::milliseconds within = std::chrono::seconds(10)) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, within, [&] { return responses_.size() >= count; });
  }

  std::vector<response> responses() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return responses_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<response> responses_;
};

// Posts one request and waits for its answer; a default response (status 0, error none,
// error_message "no answer") if none came within the deadline.
inline response post_and_wait(client& c, request r,
                              std::chrono::milliseconds within = std::chrono::seconds(10)) {
  // Outlives this call if the answer is late: the callback only touches the waiter it owns.
  auto waiter = std::make_shared<response_waiter>();
  c.post(std::move(r), [waiter](response res) { waiter->callback()(std::move(res)); });
  if (!waiter->wait_for(1, within)) {
    response none;
    none.error_message = "no answer";
    return none;
  }
  return waiter->responses().front();
}

inline request delivery(std::string body, std::string key) {
  request r;
  r.body = std::move(body);
  r.headers.emplace_back("Idempotency-Key", std::move(key));
  return r;
}

}  // namespace courier::http::testing
