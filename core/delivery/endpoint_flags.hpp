#pragma once

// What a route's answers say about its endpoint as a whole, rather than about one record: the
// SSRF guard refusing it (a matter of the route's configuration) and 410 Gone (the receiver asks
// to disable it). Each is flagged once when it starts and cleared by the answer that ends it; a
// change is a log line that always goes out (never sampled). Pure.

#include <optional>
#include <string>

#include "core/delivery/answer_judge.hpp"
#include "core/model/attempt_answer.hpp"
#include "core/model/log_line.hpp"

namespace courier {

class endpoint_flags {
 public:
  // The SSRF guard's refusal: flagged by a refused attempt, cleared by the first answer that got
  // through. The line of the change, if the flag changed.
  std::optional<log_line> on_blocked(const std::string& route, const attempt_answer& a);
  // 410 Gone: flagged by a 410, cleared by the first 2xx (a probe got through); other answers
  // leave it as it is.
  std::optional<log_line> on_gone(const std::string& route, const attempt_answer& a,
                                  answer_verdict verdict);

  // The latest answer was the SSRF guard refusing the endpoint.
  [[nodiscard]] bool blocked() const { return blocked_; }
  // The receiver answered 410 Gone and no 2xx came since.
  [[nodiscard]] bool gone() const { return gone_; }

 private:
  bool blocked_ = false;
  bool gone_ = false;
};

}  // namespace courier
