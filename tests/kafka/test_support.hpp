#pragma once

#include <chrono>
#include <string>

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

// A name unique within this process, so tests sharing a cluster never share topics or groups.
inline std::string unique_name(const std::string& prefix) {
  static int counter = 0;
  return prefix + "-" + std::to_string(++counter);
}

}  // namespace courier::kafka::test
