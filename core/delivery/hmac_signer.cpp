#include "core/delivery/hmac_signer.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace courier {
namespace {

struct mac_deleter {
  void operator()(EVP_MAC* mac) const { EVP_MAC_free(mac); }
};
struct mac_ctx_deleter {
  void operator()(EVP_MAC_CTX* ctx) const { EVP_MAC_CTX_free(ctx); }
};
using mac_ptr = std::unique_ptr<EVP_MAC, mac_deleter>;
using mac_ctx_ptr = std::unique_ptr<EVP_MAC_CTX, mac_ctx_deleter>;

constexpr std::size_t sha256_size = 32;
using digest = std::array<unsigned char, sha256_size>;

digest hmac_sha256(std::string_view key, std::string_view body) {
  mac_ptr mac{EVP_MAC_fetch(nullptr, "HMAC", nullptr)};
  if (!mac) {
    throw std::runtime_error("hmac_signer: EVP_MAC_fetch(HMAC) failed");
  }
  mac_ctx_ptr ctx{EVP_MAC_CTX_new(mac.get())};
  if (!ctx) {
    throw std::runtime_error("hmac_signer: EVP_MAC_CTX_new failed");
  }
  // OSSL_PARAM wants a mutable char*; OpenSSL only reads it.
  char digest_name[] = "SHA256";
  std::array<OSSL_PARAM, 2> params{
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
      OSSL_PARAM_construct_end()};
  // An empty key is legal HMAC; OpenSSL needs a non-null pointer for it.
  static constexpr unsigned char empty_key[1] = {0};
  const auto* key_bytes =
      key.empty() ? empty_key : reinterpret_cast<const unsigned char*>(key.data());
  if (EVP_MAC_init(ctx.get(), key_bytes, key.size(), params.data()) != 1) {
    throw std::runtime_error("hmac_signer: EVP_MAC_init failed");
  }
  if (!body.empty() &&
      EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(body.data()), body.size()) !=
          1) {
    throw std::runtime_error("hmac_signer: EVP_MAC_update failed");
  }
  digest out{};
  std::size_t out_len = 0;
  if (EVP_MAC_final(ctx.get(), out.data(), &out_len, out.size()) != 1 || out_len != out.size()) {
    throw std::runtime_error("hmac_signer: EVP_MAC_final failed");
  }
  return out;
}

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

hmac_signer::hmac_signer(std::string secret) : secret_(std::move(secret)) {}

std::string hmac_signer::sign(std::string_view body) const {
  static constexpr char digits[] = "0123456789abcdef";
  const digest mac = hmac_sha256(secret_, body);
  std::string hex;
  hex.reserve(2 * mac.size());
  for (unsigned char b : mac) {
    hex.push_back(digits[b >> 4]);
    hex.push_back(digits[b & 0x0f]);
  }
  return hex;
}

bool hmac_signer::verify(std::string_view body, std::string_view signature_hex) const {
  // The MAC is computed even for malformed input so a bad signature costs the same as a
  // wrong one; the format of the attacker's own input is no secret.
  const digest expected = hmac_sha256(secret_, body);
  const auto given = decode_hex_digest(signature_hex);
  if (!given) {
    return false;
  }
  return CRYPTO_memcmp(expected.data(), given->data(), expected.size()) == 0;
}

}  // namespace courier
