#pragma once

#include <string>
#include <string_view>

namespace courier {

// HMAC-SHA256 over a request body with OpenSSL 3's EVP_MAC; the seed's X-Signature scheme.
class hmac_signer {
 public:
  explicit hmac_signer(std::string secret);

  // Lowercase hex HMAC-SHA256(secret, body).
  [[nodiscard]] std::string sign(std::string_view body) const;

  // Constant-time comparison of `signature_hex` (case-insensitive hex) against sign(body).
  [[nodiscard]] bool verify(std::string_view body, std::string_view signature_hex) const;

 private:
  std::string secret_;
};

}  // namespace courier
