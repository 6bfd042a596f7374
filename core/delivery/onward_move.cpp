#include "core/delivery/onward_move.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace courier {

std::string failure_message(const attempt_answer& a) {
  if (!a.error_message.empty()) {
    return a.error_message;
  }
  return "the receiver answered " + std::to_string(a.status);
}

// Distinct by role: the attempts of this sequence and the time they ended.
failure_info failure_of(const attempt_answer& a, std::string error_class,
                        std::vector<std::string> trace,
                        int attempts,  // NOLINT(bugprone-easily-swappable-parameters)
                        std::int64_t now_ms) {
  failure_info f;
  f.error_class = std::move(error_class);
  f.error_message = failure_message(a);
  f.status = a.status;
  f.response_excerpt = a.body;
  f.trace = std::move(trace);
  f.attempts = attempts;
  f.failed_at_ms = now_ms;
  return f;
}

onward_move failure_move(const record& rec, const std::string& route, const route_topics& topics,
                         const failure_info& f, bool permanent, tier_step step, std::uint64_t tag) {
  int current = topics.tier_index(rec.topic);
  const int last = static_cast<int>(topics.tiers.size()) - 1;
  switch (step) {
    case tier_step::next:
      break;
    case tier_step::stay_in_tiers:
      if (current == last) {
        current = last - 1;  // into the last tier again
      }
      break;
    case tier_step::park:
      if (last >= 0) {
        current = last - 1;  // into the last tier, from wherever it is
      }
      break;
  }
  onward_move move;
  move.to = next_destination(current, permanent, topics);
  move.onward.produce.topic = move.to.topic;
  move.onward.produce.partition = rec.partition;
  move.onward.produce.key = rec.key;
  move.onward.produce.value = rec.value;
  move.onward.produce.headers = retry_headers(rec, route, move.to, f, f.failed_at_ms);
  move.onward.from = rec.position();
  move.onward.tag = tag;
  return move;
}

receipt receipt_of(const record& rec, receipt here) {
  here.origin = rec.position();
  if (const auto endpoint = find_header(rec.headers, endpoint_header)) {
    here.endpoint = std::string{*endpoint};  // the copy's, set by the route's fan-out
  }
  if (!find_header(rec.headers, origin_topic_header)) {
    return here;
  }
  // A tier's copy or a redriven record: where it first appeared, the attempts before and the
  // first failure (its first attempt was just before) are in its headers.
  try {
    const auto state = read_retry_state(rec.headers);
    if (state.from) {
      here.origin = record_position{state.from->topic, state.from->partition, state.from->offset};
    }
    // Saturated: a tier record's count is at most INT_MAX already (retry_headers.cpp).
    here.attempts = static_cast<int>(std::min<std::int64_t>(
        std::int64_t{here.attempts} + state.total_attempts, std::numeric_limits<int>::max()));
    if (state.first_failure_ms) {
      here.first_attempt_ms = *state.first_failure_ms;
    }
  } catch (const header_error&) {
    // Written by hand or by something else: the receipt names the copy as it is.
  }
  return here;
}

onward_move receipt_move(const record& rec, const std::string& idempotency_key, const receipt& r,
                         const std::string& receipts_topic, std::uint64_t tag) {
  onward_move move;
  move.to =
      destination{destination::kind::receipt, -1, receipts_topic, std::chrono::milliseconds{0}};
  move.onward.produce.topic = receipts_topic;
  move.onward.produce.partition = rec.partition;
  move.onward.produce.key = idempotency_key;
  move.onward.produce.value = encode_receipt(r);
  move.onward.from = rec.position();
  move.onward.tag = tag;
  return move;
}

}  // namespace courier
