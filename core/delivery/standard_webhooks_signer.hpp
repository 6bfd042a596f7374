#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/crypto/hmac_sha256.hpp"

namespace courier {

// The Standard Webhooks symmetric scheme (https://www.standardwebhooks.com/, spec 1.0.0):
// `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`, one `v1,`
// signature per active secret, space-separated, so that during a rotation receivers holding
// the old secret and receivers holding the new one both verify. Keys are set up once; sign()
// and verify() are safe to call concurrently.
class standard_webhooks_signer {
 public:
  // `secrets` in the "whsec_<base64>" form, in the order their signatures appear. Throws
  // std::invalid_argument (naming the position, never the secret) for an empty list or a
  // malformed secret; config validation reports both earlier, with the key.
  explicit standard_webhooks_signer(const std::vector<std::string>& secrets);

  // The webhook-signature header for one attempt; `timestamp` is its webhook-timestamp.
  [[nodiscard]] std::string sign(std::string_view id, std::int64_t timestamp,
                                 std::string_view body) const;

  // -- the receiver's side (mock_webhook) ----------------------------------------------------

  enum class verdict {
    verified,
    missing_headers,  // webhook-id, webhook-timestamp or webhook-signature absent or empty
    bad_timestamp,    // not a number of seconds
    too_old,          // more than `tolerance` before `now`
    too_new,          // more than `tolerance` after `now`
    no_match,         // no v1 signature in the header matches any of the secrets
  };
  // The reference libraries' tolerance.
  static constexpr std::chrono::seconds default_tolerance{5 * 60};

  // Checks the timestamp against `now` (unix seconds), then every `v1,` signature of the header
  // against every secret, comparing the decoded MACs in constant time (CRYPTO_memcmp).
  [[nodiscard]] verdict verify(std::string_view id, std::string_view timestamp,
                               std::string_view signatures, std::string_view body, std::int64_t now,
                               std::chrono::seconds tolerance = default_tolerance) const;

 private:
  std::vector<hmac_sha256> keys_;
};

// "verified", "missing headers", ...: for a 401's body and test messages.
const char* to_string(standard_webhooks_signer::verdict v);

}  // namespace courier
