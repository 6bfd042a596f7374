#include "core/delivery/answer_judge.hpp"

#include <algorithm>
#include <utility>

#include "core/delivery/status_classifier.hpp"

namespace courier {

answer_judge::answer_judge(answer_judge_settings settings) : settings_(std::move(settings)) {}

answer_verdict answer_judge::judge(int status, transport_error error, bool probe) {
  if (error == transport_error::ssrf_blocked) {
    // Permanent, but for the route rather than the record: every record would be refused the
    // same way, so it is held like a 401, never dead-lettered.
    return answer_verdict::endpoint_failure;
  }
  // A final status with an error: its headers were read whole and then its body failed (longer
  // than max_response_bytes, cut off, too slow). The receiver decided: a 2xx was delivered and
  // is not sent again, a 4xx is refused; the status judges it.
  if (error != transport_error::none && !is_final_status(status)) {
    switch (classify_transport(error)) {
      case delivery_class::delivered:
        return answer_verdict::delivered;
      case delivery_class::retriable:
        return answer_verdict::retry;
      case delivery_class::permanent:
        return answer_verdict::dead_letter;
    }
  }
  if (status == 410) {
    return answer_verdict::endpoint_gone;
  }
  const auto& endpoint = settings_.endpoint_failure_statuses;
  if (std::find(endpoint.begin(), endpoint.end(), status) != endpoint.end()) {
    return answer_verdict::endpoint_failure;
  }
  switch (classify_status(status)) {
    case delivery_class::delivered:
      permanent_run_ = 0;
      return answer_verdict::delivered;
    case delivery_class::retriable:
      return answer_verdict::retry;
    case delivery_class::permanent:
      ++permanent_run_;
      if (settings_.trip_on_permanent_run > 0 &&
          permanent_run_ >= settings_.trip_on_permanent_run && !probe) {
        return answer_verdict::endpoint_failure;
      }
      return answer_verdict::dead_letter;
  }
  return answer_verdict::retry;
}

int answer_judge::permanent_run() const { return permanent_run_; }

}  // namespace courier
