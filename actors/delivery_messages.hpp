#pragma once

// The delivery pool's translations between CAF messages, the HTTP client and the attempt
// policy (core/delivery/attempt_policy.hpp), and its metrics publishing.

#include <chrono>
#include <cstdint>

#include "actors/delivery_pool.hpp"
#include "actors/messages.hpp"
#include "core/delivery/attempt_policy.hpp"
#include "core/http/client.hpp"

namespace courier::actors {

// On the HTTP client's thread: the attempt's answer as the policy takes it (a failure's body
// capped for the retry headers; a 2xx's not copied).
attempt_answer answer_of(delivery_id id, const http::response& r,
                         std::chrono::nanoseconds duration);

// Adds what the policy counted since the last event to the route's metrics.
void publish(delivery_pool_state& st);

}  // namespace courier::actors
