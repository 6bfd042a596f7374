#pragma once

#include <chrono>
#include <cstddef>

namespace courier::auth {

// The shortest wait before a token is fetched again, however short its lifetime.
inline constexpr std::chrono::milliseconds shortest_refresh{1000};

// When a token issued with `lifetime` is refreshed, counted from its issue: "shortly before it
// expires", a tenth of its lifetime before, at least 5 s before but never more than half of it
// (an hour's token at 54 min, a minute's at 54 s, a 5 s token at 2.5 s), and never sooner than
// shortest_refresh. A token refreshed so ahead of time is never sent expired while the endpoint
// answers, even with the clocks of courier and the endpoint a few seconds apart.
std::chrono::milliseconds refresh_after(std::chrono::seconds lifetime);

// How long to wait before the `failures`-th retry of a failed refresh (1 for the first): 1 s,
// doubling, capped at 30 s. The current token is kept meanwhile, until it expires.
std::chrono::milliseconds refresh_retry_after(std::size_t failures);

}  // namespace courier::auth
