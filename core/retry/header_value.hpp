#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace courier {

// Every header value courier writes is at most this many bytes, cut on a UTF-8 character
// boundary.
inline constexpr std::size_t max_header_value = 1024;

// What a cut value ends with: "…", U+2026.
inline constexpr std::string_view cut_marker = "\xE2\x80\xA6";

// `text` as valid UTF-8 (each invalid byte becomes U+FFFD) of at most `max_bytes`, cut on a
// character boundary; a cut text ends in "…" within the limit.
std::string cap_header_value(std::string_view text, std::size_t max_bytes = max_header_value);

}  // namespace courier
