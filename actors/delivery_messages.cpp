#include "actors/delivery_messages.hpp"

#include <cstddef>
#include <cstdint>

#include "core/retry/header_value.hpp"  // max_header_value

namespace courier::actors {

attempt_answer answer_of(delivery_id id, const http::response& r,
                         std::chrono::nanoseconds duration) {
  attempt_answer out;
  out.id = id;
  out.status = r.status;
  out.transport = r.error;
  out.error_message = r.error_message;
  out.retry_after = r.retry_after;
  out.response_headers = r.kept_headers;
  // Only a failure's body travels on (into the retry headers): a 2xx's is not copied.
  if (r.status < 200 || r.status >= 300) {
    out.body = r.body.substr(0, max_header_value);
  }
  out.duration = duration;
  return out;
}

void publish(delivery_pool_state& st) {
  const auto& now = st.policy->counts();
  auto& was = st.published;
  auto& m = *st.metrics;
  for (std::size_t c = 0; c < now.size(); ++c) {
    m.deliveries.at_index(c) += now.at_index(c) - was.at_index(c);
  }
  m.endpoint_blocked = st.policy->endpoint_blocked();
  m.endpoint_gone = st.policy->endpoint_gone();
  was = now;
  m.in_flight = static_cast<std::int64_t>(st.policy->in_flight());
  m.concurrency_limit = st.policy->concurrency_limit();
  m.rate_limit_waiting = static_cast<std::int64_t>(st.policy->waiting_for_rate());
  m.attempts_in_flight = static_cast<std::int64_t>(st.policy->attempts_out());
  m.credentials_waiting = static_cast<std::int64_t>(st.policy->waiting_for_credentials());
  m.rate_limit = st.policy->rate_limit();
}

}  // namespace courier::actors
