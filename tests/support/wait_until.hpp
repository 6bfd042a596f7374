#pragma once

// Waiting on a condition with a deadline, the one way tests wait: never a fixed sleep.

#include <chrono>
#include <functional>
#include <thread>

namespace courier::testing {

// Checks `done` until it holds or `timeout` passes; returns its last value (checked once more
// after the deadline, so a condition that came true meanwhile counts). Between checks it calls
// `step`, which must itself wait (a consumer poll, a waitpid with a timeout); without one it
// sleeps 20 ms.
inline bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout,
                       const std::function<void()>& step = {}) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const bool past = std::chrono::steady_clock::now() >= deadline;
    if (done()) {
      return true;
    }
    if (past) {
      return false;
    }
    if (step) {
      step();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
  }
}

}  // namespace courier::testing
