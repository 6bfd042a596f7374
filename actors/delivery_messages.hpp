#pragma once

// The delivery pool's translations between CAF messages, the HTTP client and the attempt
// policy (core/delivery/attempt_policy.hpp), and its metrics publishing.

#include <chrono>
#include <cstdint>

#include "actors/delivery_pool.hpp"
#include "actors/messages.hpp"
#include "core/config/config.hpp"
#include "core/delivery/attempt_policy.hpp"
#include "core/http/client.hpp"

namespace courier::actors {

// The route's signing schemes, secrets and Idempotency-Key form (moved out of `route`).
signing_settings signing_of(route_config& route);

// The route's settings as the attempt policy takes them.
attempt_policy_settings settings_of(route_config route);

// On the HTTP client's thread: the attempt's answer as the policy takes it (a failure's body
// capped for the retry headers; a 2xx's not copied).
attempt_answer answer_of(delivery_id id, const http::response& r,
                         std::chrono::nanoseconds duration);

// Adds what the policy counted since the last event to the route's metrics.
void publish(delivery_pool_state& st);

}  // namespace courier::actors
