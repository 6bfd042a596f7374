#pragma once

#include <string>
#include <string_view>

namespace courier {

// The SHA-256 of `bytes` as 64 lowercase hexadecimal digits (OpenSSL EVP). Throws
// std::runtime_error when OpenSSL cannot compute it.
std::string sha256_hex(std::string_view bytes);

}  // namespace courier
