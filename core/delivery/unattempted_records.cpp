// The records the attempt policy moves on without an attempt: to the DLQ, an ordered route's
// record parked behind its dead-lettered key and a record that names none of its route's
// endpoints; to the last retry tier, an endpoint's record that may not go now (park), also one
// waiting its backoff when the endpoint's breaker opens.

#include "core/delivery/attempt_policy.hpp"

#include <utility>

#include "core/model/error_classes.hpp"

namespace courier {

attempt_policy::accepted attempt_policy::on_parked_record(record r, time_point now) {
  return dead_letter_unattempted(
      std::move(r),
      {error_class_name::key_parked,
       "not attempted: an earlier record of its key was dead-lettered (ordering.on_dead_letter "
       "\"park\")"},
      now);
}

attempt_policy::accepted attempt_policy::on_unknown_endpoint_record(record r, time_point now) {
  return dead_letter_unattempted(std::move(r),
                                 {error_class_name::unknown_endpoint,
                                  "not attempted: it names none of the route's endpoints "
                                  "(endpoint_from; on_unknown_endpoint \"dead_letter\")"},
                                 now);
}

attempt_policy::accepted attempt_policy::dead_letter_unattempted(record r, unattempted reason,
                                                                 time_point now) {
  accepted out;
  auto [id, d] = pending_.take(std::move(r));
  out.id = id;
  attempt_answer why;
  why.id = id;
  why.error_message = reason.message;
  route_onward(id, d, /*permanent=*/true, reason.error_class, why, now, out.todo);
  return out;
}

bool attempt_policy::parks_in_tiers() const {
  return settings_.park_while_open && !settings_.topics.tiers.empty();
}

void attempt_policy::park(delivery_id id, delivery& d, unattempted why, time_point now,
                          actions& out) {
  attempt_answer none;
  none.id = id;
  none.error_message = why.message;
  route_onward(id, d, /*permanent=*/false, why.error_class, none, now, out, tier_step::park);
}

// The breaker left Open: what waited for it asks again. It opened: with park_while_open, what
// waits its backoff is parked now.
attempt_policy::actions attempt_policy::on_breaker_change(breaker_state to,
                                                          std::uint64_t generation,
                                                          time_point now) {
  actions out;
  for (const auto id : gate_.on_breaker_change(to, generation)) {
    try_attempt(id, now, out);
  }
  if (to == breaker_state::open) {
    park_backing_off(now, out);
  }
  return out;
}

void attempt_policy::park_backing_off(time_point now, actions& out) {
  if (!parks_in_tiers()) {
    return;
  }
  for (const auto id : pending_.backing_off()) {
    park(id, *pending_.find(id),
         {error_class_name::breaker_open, "not attempted: the endpoint's breaker is open"}, now,
         out);
  }
}

}  // namespace courier
