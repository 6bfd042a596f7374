#include "admin/health.hpp"

#include <nlohmann/json.hpp>

#include "admin/json_body.hpp"

namespace courier::admin {

using nlohmann::json;

verdict readiness(const std::vector<route_snapshot>& routes, bool stopping) {
  json waiting = json::array();
  json draining = json::array();
  for (const auto& r : routes) {
    if (r.draining) {
      draining.push_back(r.name);
    } else if (!r.assigned) {
      waiting.push_back(r.name);
    }
  }
  if (stopping || !draining.empty()) {
    return {false, json_body({{"status", "not ready"},
                              {"reason", "stopping: the consumers drain"},
                              {"draining", draining}})};
  }
  if (!waiting.empty()) {
    return {false, json_body({{"status", "not ready"},
                              {"reason", "waiting for the first partition assignment"},
                              {"routes", waiting}})};
  }
  json unreachable = json::array();
  for (const auto& r : routes) {
    if (!r.broker_reachable) {
      unreachable.push_back(r.name);
    }
  }
  if (!unreachable.empty()) {
    return {false, json_body({{"status", "not ready"},
                              {"reason", "the broker is unreachable"},
                              {"routes", unreachable}})};
  }
  return {true, json_body({{"status", "ready"}})};
}

verdict liveness(const std::vector<actor_answer>& answers, std::chrono::milliseconds bound,
                 const std::vector<route_snapshot>& routes, std::int64_t now_steady_ms,
                 std::chrono::milliseconds poll_bound) {
  json down = json::array();
  json silent = json::array();
  for (const auto& a : answers) {
    if (a.what == actor_answer::kind::down) {
      down.push_back(a.name);
    } else if (a.what == actor_answer::kind::timed_out) {
      silent.push_back(a.name);
    }
  }
  if (!down.empty()) {
    return {false,
            json_body({{"status", "unhealthy"}, {"reason", "an actor is down"}, {"down", down}})};
  }
  if (!silent.empty()) {
    return {false, json_body({{"status", "unhealthy"},
                              {"reason", "an actor did not answer within " +
                                             std::to_string(bound.count()) + " ms"},
                              {"not_answering", silent}})};
  }
  json stalled = json::array();
  for (const auto& r : routes) {
    if (r.last_poll_steady_ms != 0 && !r.draining &&
        now_steady_ms - r.last_poll_steady_ms > poll_bound.count()) {
      stalled.push_back({{"route", r.name}, {"since_ms", now_steady_ms - r.last_poll_steady_ms}});
    }
  }
  if (!stalled.empty()) {
    return {false, json_body({{"status", "unhealthy"},
                              {"reason", "a route's consumer has not polled Kafka for over " +
                                             std::to_string(poll_bound.count()) + " ms"},
                              {"not_polling", stalled}})};
  }
  return {true, json_body({{"status", "healthy"}, {"actors", answers.size()}})};
}

}  // namespace courier::admin
