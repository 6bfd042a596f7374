#pragma once

// The instants the HTTP-date and Retry-After tests read dates against.

#include <chrono>
#include <cstdint>

namespace courier::testing {

// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example date.
inline constexpr std::int64_t rfc_example_epoch = 784111777;
inline constexpr std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>
    rfc_example{std::chrono::seconds{rfc_example_epoch}};
inline constexpr std::chrono::system_clock::time_point ten_seconds_before =
    rfc_example - std::chrono::seconds{10};
// 2024-06-01T00:00:00Z, a "now" for the two-digit-year pivot.
inline constexpr std::chrono::system_clock::time_point mid_2024{std::chrono::seconds{1717200000}};

}  // namespace courier::testing
