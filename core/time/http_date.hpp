#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace courier {

// Whole seconds since the epoch on the system clock. Unlike system_clock::time_point, whose
// nanoseconds end in 2262, it holds every four-digit year an HTTP-date can name.
using sys_seconds = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>;

// The instant an HTTP-date names (RFC 9110 5.6.7): IMF-fixdate ("Sun, 06 Nov 1994 08:49:37
// GMT") and the obsolete RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime ("Sun Nov  6
// 08:49:37 1994") forms, exactly, with no surrounding whitespace. An RFC 850 two-digit year is
// the one not more than 50 years after `now`'s year. Impossible dates and times give nullopt.
// Independent of locale and time zone.
std::optional<sys_seconds> parse_http_date(std::string_view value,
                                           std::chrono::system_clock::time_point now);

}  // namespace courier
