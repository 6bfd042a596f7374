#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace courier {

// Standard base64 (RFC 4648 section 4, with `=` padding) through OpenSSL's EVP_EncodeBlock and
// EVP_DecodeBlock.
std::string base64_encode(std::string_view bytes);

// The bytes `text` encodes, or nothing unless it is canonical padded base64: a length that is a
// multiple of 4, only the alphabet, at most two `=` and only at the end, no whitespace.
// EVP_DecodeBlock alone would skip surrounding whitespace and decode padding as zero bytes.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace courier
