#include "core/retry/header_value.hpp"

#include <algorithm>

namespace courier {
namespace {

constexpr std::string_view replacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence starting at s[i], or 0 if there is none
// (overlong forms, surrogates and code points past U+10FFFF are not well formed).
std::size_t sequence_length(std::string_view s, std::size_t i) {
  const auto lead = static_cast<unsigned char>(s[i]);
  if (lead < 0x80) {
    return 1;
  }
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead == 0xE0) {
    length = 3;
    low = 0xA0;
  } else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) {
    length = 3;
  } else if (lead == 0xED) {
    length = 3;
    high = 0x9F;
  } else if (lead == 0xF0) {
    length = 4;
    low = 0x90;
  } else if (lead >= 0xF1 && lead <= 0xF3) {
    length = 4;
  } else if (lead == 0xF4) {
    length = 4;
    high = 0x8F;
  } else {
    return 0;
  }
  if (s.size() - i < length) {
    return 0;
  }
  const auto second = static_cast<unsigned char>(s[i + 1]);
  if (second < low || second > high) {
    return 0;
  }
  for (std::size_t k = 2; k < length; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) {
      return 0;
    }
  }
  return length;
}

}  // namespace

std::string cap_header_value(std::string_view text, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + replacement.size());
  // Validating past the limit is wasted work: one byte over is enough to know a cut is due.
  for (std::size_t i = 0; i < text.size() && out.size() <= max_bytes;) {
    const std::size_t length = sequence_length(text, i);
    if (length == 0) {
      out += replacement;
      ++i;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
  if (out.size() <= max_bytes) {
    return out;
  }
  const bool with_marker = max_bytes >= cut_marker.size();
  std::size_t keep = with_marker ? max_bytes - cut_marker.size() : max_bytes;
  // out is well formed, so backing off continuation bytes lands on a character start.
  while (keep > 0 && (static_cast<unsigned char>(out[keep]) & 0xC0) == 0x80) {
    --keep;
  }
  out.resize(keep);
  if (with_marker) {
    out += cut_marker;
  }
  return out;
}

}  // namespace courier
