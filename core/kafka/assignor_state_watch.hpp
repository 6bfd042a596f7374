#pragma once

#include <mutex>
#include <string>
#include <string_view>

namespace courier::kafka {

// librdkafka 2.0.2 aborts inside rd_kafka_destroy ("rd_kafka_sticky_assignor_state_destroy:
// Assertion `assignor_state' failed", issue #4312 there, fixed in 2.3.0) when the group chose a
// sticky assignor at this member's JoinGroup but no SyncGroup assignment reached the member
// before it closed: the assignor's state is made at the member's first assignment and destroyed
// without a check. A member closed during its first rebalance (a stop while another instance or
// the route's other member joins) is one. The watch reads the group's debug lines that mark both
// events, so the owner knows before it destroys the handle.
class assignor_state_watch {
 public:
  // One librdkafka log line (after its "[thrd:main]: " prefix): "JoinGroup response: GenerationId
  // 3, Protocol cooperative-sticky,
  // ... (no error)" (facility JOINGROUP) chooses the assignor, a new one without state; "List
  // with N partition(s):" (facility ASSIGNMENT) follows the assignment that made the state.
  // Called on librdkafka's threads.
  void observe(std::string_view facility, std::string_view line);

  // Whether destroying the handle now would hit that assertion.
  [[nodiscard]] bool destroy_would_abort() const;

 private:
  mutable std::mutex mutex_;
  std::string protocol_;  // the assignor the last successful JoinGroup chose ("" before one)
  bool state_made_ = false;
};

}  // namespace courier::kafka
