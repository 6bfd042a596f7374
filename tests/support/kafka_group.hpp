#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>

namespace courier::testing {

// Consumer-group timings for tests: a departed member's session expires in seconds, so a
// rebalance or a restarted consumer does not wait librdkafka's default 45 s. (librdkafka
// 2.0.2's mock coordinator lets a new member join only after the departed members' sessions
// expired, LeaveGroup or not.)
// A consumer test's poll: how long it waits, and how many records it takes at most.
inline constexpr std::chrono::milliseconds poll_timeout{100};
inline constexpr std::size_t poll_batch = 64;

inline std::map<std::string, std::string> fast_group() {
  return {{"heartbeat.interval.ms", "500"}, {"session.timeout.ms", "6000"}};
}

}  // namespace courier::testing
