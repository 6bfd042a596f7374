#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace courier {

// How long a receiver asked us to wait, from a `Retry-After` header value (RFC 9110 10.2.3):
// delta-seconds ("120") or an HTTP-date (IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", and the
// obsolete RFC 850 and asctime forms). Surrounding whitespace is ignored. A date in the past
// gives 0ms; a value that is neither form gives nullopt. Huge delta-seconds saturate; callers
// clamp (backoff_policy::max_retry_after). Independent of locale and time zone.
std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now);

}  // namespace courier
