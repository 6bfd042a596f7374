#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace courier {

// A Standard Webhooks signing secret as partners see it: "whsec_" and the base64 of the key.
// The specification wants keys of 24 to 64 bytes (192 to 512 bits).
inline constexpr std::string_view whsec_prefix = "whsec_";
inline constexpr std::size_t whsec_min_key_bytes = 24;
inline constexpr std::size_t whsec_max_key_bytes = 64;

struct whsec_key {
  std::string key;      // the HMAC key: the decoded base64; empty when `problem` is set
  std::string problem;  // why the text is no whsec_ secret; never quotes the text
};

// Decodes "whsec_<base64>". What is wrong is told without the secret, so it can go into a
// config error or a log line as it is.
whsec_key parse_whsec(std::string_view secret);

}  // namespace courier
