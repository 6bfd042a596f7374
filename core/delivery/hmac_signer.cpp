#include "core/delivery/hmac_signer.hpp"

#include <openssl/crypto.h>

#include <cstddef>
#include <optional>

namespace courier {
namespace {

using digest = hmac_sha256::digest;
constexpr std::size_t sha256_size = hmac_sha256::size;

std::optional<unsigned char> hex_value(char c) {
  if (c >= '0' && c <= '9') {
    return static_cast<unsigned char>(c - '0');
  }
  if (c >= 'a' && c <= 'f') {
    return static_cast<unsigned char>(c - 'a' + 10);
  }
  if (c >= 'A' && c <= 'F') {
    return static_cast<unsigned char>(c - 'A' + 10);
  }
  return std::nullopt;
}

// Decodes exactly one SHA-256 worth of hex; anything else is not a signature of ours.
std::optional<digest> decode_hex_digest(std::string_view hex) {
  if (hex.size() != 2 * sha256_size) {
    return std::nullopt;
  }
  digest out{};
  for (std::size_t i = 0; i < sha256_size; ++i) {
    auto hi = hex_value(hex[2 * i]);
    auto lo = hex_value(hex[2 * i + 1]);
    if (!hi || !lo) {
      return std::nullopt;
    }
    out[i] = static_cast<unsigned char>((*hi << 4) | *lo);
  }
  return out;
}

}  // namespace

hmac_signer::hmac_signer(std::string_view secret) : key_(secret) {}

std::string hmac_signer::sign(std::string_view body) const {
  static constexpr char digits[] = "0123456789abcdef";
  const digest mac = key_.mac(body);
  std::string hex;
  hex.reserve(2 * mac.size());
  for (unsigned char b : mac) {
    hex.push_back(digits[b >> 4]);
    hex.push_back(digits[b & 0x0f]);
  }
  return hex;
}

// Distinct by role: a body and its signature, named at every call.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
bool hmac_signer::verify(std::string_view body, std::string_view signature_hex) const {
  // The MAC is computed even for malformed input so a bad signature costs the same as a
  // wrong one; the format of the attacker's own input is no secret.
  const digest expected = key_.mac(body);
  const auto given = decode_hex_digest(signature_hex);
  if (!given) {
    return false;
  }
  return CRYPTO_memcmp(expected.data(), given->data(), expected.size()) == 0;
}

}  // namespace courier
