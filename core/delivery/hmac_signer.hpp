#pragma once

#include <string>
#include <string_view>

#include "core/crypto/hmac_sha256.hpp"

namespace courier {

// HMAC-SHA256 over a request body with OpenSSL 3's EVP_MAC; the seed's X-Signature scheme.
// The key is set up once, in the constructor (one signer per route); sign() and verify() are
// safe to call concurrently.
class hmac_signer {
 public:
  explicit hmac_signer(std::string_view secret);

  // Lowercase hex HMAC-SHA256(secret, body).
  [[nodiscard]] std::string sign(std::string_view body) const;

  // Constant-time comparison of `signature_hex` (case-insensitive hex) against sign(body).
  [[nodiscard]] bool verify(std::string_view body, std::string_view signature_hex) const;

 private:
  hmac_sha256 key_;
};

}  // namespace courier
