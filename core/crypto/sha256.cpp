#include "core/crypto/sha256.hpp"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>

namespace courier {

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1 ||
      length != 32) {
    throw std::runtime_error("sha256: EVP_Digest failed");
  }
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(std::size_t{2} * length);
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(digits[digest[i] >> 4U]);
    out.push_back(digits[digest[i] & 0x0fU]);
  }
  return out;
}

}  // namespace courier
