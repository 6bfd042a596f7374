#pragma once

#include <chrono>

namespace courier::kafka::test {

// Polls `condition` until it holds or `timeout` passes; returns its last value. `step` is
// called between checks and must itself wait (e.g. a consumer poll), never sleep.
template <class Condition, class Step>
bool wait_until(std::chrono::milliseconds timeout, Condition condition, Step step) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return condition();
    }
    step();
  }
  return true;
}

}  // namespace courier::kafka::test
