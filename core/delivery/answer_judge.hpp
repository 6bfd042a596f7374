#pragma once

#include <vector>

#include "core/model/transport_error.hpp"

namespace courier {

// What one answer means for its record once the endpoint's recent answers are taken into
// account (DESIGN.md section 2: endpoint-level failures are not record-level failures).
enum class answer_verdict {
  delivered,         // 2xx
  retry,             // retriable: backoff in process, then the retry tiers
  dead_letter,       // permanent and about this record: straight to the DLQ
  endpoint_failure,  // the endpoint refuses everyone (or the SSRF guard refuses the endpoint):
                     // a failure for the breaker, record held
  endpoint_gone,     // 410 Gone: the receiver wants the endpoint disabled (Standard Webhooks);
                     // record held, the breaker opens at once and the route is flagged `gone`
};

struct answer_judge_settings {
  // Statuses that speak about the endpoint (401, 403: a rotated secret, a revoked key).
  std::vector<int> endpoint_failure_statuses{401, 403};
  // This many permanent answers in a row across records, with no 2xx between, are the
  // endpoint's fault too; 0 disables the rule.
  int trip_on_permanent_run = 20;
};

// One per route. Keeps the run of consecutive permanent answers; pure, no clock.
class answer_judge {
 public:
  explicit answer_judge(answer_judge_settings settings);

  // 410 comes first: never dead-lettered, never part of a permanent run, even as the probe.
  // `status` is 0 when `error` says why there was no answer. `probe`: the breaker's Half-Open
  // probe. A probe's permanent answer is dead-lettered even during a run: the breaker lets one
  // probe through per open_timeout, so a topic of truly bad records still drains, slowly,
  // instead of holding forever; a later 2xx ends the run.
  [[nodiscard]] answer_verdict judge(int status, transport_error error, bool probe);

  // Permanent answers in a row so far.
  [[nodiscard]] int permanent_run() const;

 private:
  answer_judge_settings settings_;
  int permanent_run_ = 0;
};

}  // namespace courier
