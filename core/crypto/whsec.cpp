#include "core/crypto/whsec.hpp"

#include "core/crypto/base64.hpp"

namespace courier {

whsec_key parse_whsec(std::string_view secret) {
  if (secret.substr(0, whsec_prefix.size()) != whsec_prefix) {
    return {{}, "must start with \"whsec_\" followed by the base64 of the key"};
  }
  auto key = base64_decode(secret.substr(whsec_prefix.size()));
  if (!key) {
    return {{}, "the part after \"whsec_\" is not padded base64"};
  }
  if (key->size() < whsec_min_key_bytes || key->size() > whsec_max_key_bytes) {
    return {{},
            "the key is " + std::to_string(key->size()) + " bytes; Standard Webhooks keys are " +
                std::to_string(whsec_min_key_bytes) + " to " + std::to_string(whsec_max_key_bytes) +
                " bytes"};
  }
  return {std::move(*key), {}};
}

}  // namespace courier
