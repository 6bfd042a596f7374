#include "core/delivery/standard_webhooks_signer.hpp"

#include <openssl/crypto.h>

#include <optional>
#include <stdexcept>

#include "core/crypto/base64.hpp"
#include "core/crypto/whsec.hpp"

namespace courier {
namespace {

std::vector<hmac_sha256> keys_of(const std::vector<std::string>& secrets) {
  if (secrets.empty()) {
    throw std::invalid_argument("standard_webhooks_signer: no secret");
  }
  std::vector<hmac_sha256> keys;
  keys.reserve(secrets.size());
  for (std::size_t i = 0; i < secrets.size(); ++i) {
    const auto parsed = parse_whsec(secrets[i]);
    if (!parsed.problem.empty()) {
      throw std::invalid_argument("standard_webhooks_signer: secret " + std::to_string(i) + " " +
                                  parsed.problem);
    }
    keys.emplace_back(parsed.key);
  }
  return keys;
}

std::optional<std::int64_t> parse_seconds(std::string_view text) {
  if (text.empty() || text.size() > 18) {
    return std::nullopt;  // 18 digits cannot overflow; unix seconds need 10
  }
  std::int64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

standard_webhooks_signer::standard_webhooks_signer(const std::vector<std::string>& secrets)
    : keys_(keys_of(secrets)) {}

std::string standard_webhooks_signer::sign(std::string_view id, std::int64_t timestamp,
                                           std::string_view body) const {
  const std::string ts = std::to_string(timestamp);
  std::string header;
  for (const auto& key : keys_) {
    const auto mac = key.mac({id, ".", ts, ".", body});
    if (!header.empty()) {
      header.push_back(' ');
    }
    header += "v1,";
    header +=
        base64_encode(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
  }
  return header;
}

standard_webhooks_signer::verdict standard_webhooks_signer::verify(
    // Distinct by role: the three webhook-* headers and the body, named at every call.
    // NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
    std::string_view id, std::string_view timestamp, std::string_view signatures,
    std::string_view body, std::int64_t now, std::chrono::seconds tolerance) const {
  if (id.empty() || timestamp.empty() || signatures.empty()) {
    return verdict::missing_headers;
  }
  const auto ts = parse_seconds(timestamp);
  if (!ts) {
    return verdict::bad_timestamp;
  }
  if (now - *ts > tolerance.count()) {
    return verdict::too_old;
  }
  if (*ts - now > tolerance.count()) {
    return verdict::too_new;
  }
  std::vector<hmac_sha256::digest> expected;
  expected.reserve(keys_.size());
  for (const auto& key : keys_) {
    expected.push_back(key.mac({id, ".", timestamp, ".", body}));
  }
  bool matched = false;
  std::string_view rest = signatures;
  while (!rest.empty()) {
    const auto space = rest.find(' ');
    const std::string_view entry = rest.substr(0, space);
    rest = space == std::string_view::npos ? std::string_view{} : rest.substr(space + 1);
    // Other versions (v1a: asymmetric) are for other verifiers; skip them, as the libraries do.
    if (entry.substr(0, 3) != "v1,") {
      continue;
    }
    const auto given = base64_decode(entry.substr(3));
    if (!given || given->size() != hmac_sha256::size) {
      continue;
    }
    for (const auto& mac : expected) {
      // Every pair is compared, so the time taken says nothing about which one matched.
      matched |= CRYPTO_memcmp(mac.data(), given->data(), mac.size()) == 0;
    }
  }
  return matched ? verdict::verified : verdict::no_match;
}

const char* to_string(standard_webhooks_signer::verdict v) {
  using verdict = standard_webhooks_signer::verdict;
  switch (v) {
    case verdict::verified:
      return "verified";
    case verdict::missing_headers:
      return "missing webhook-id, webhook-timestamp or webhook-signature";
    case verdict::bad_timestamp:
      return "webhook-timestamp is not a number of seconds";
    case verdict::too_old:
      return "webhook-timestamp is too old";
    case verdict::too_new:
      return "webhook-timestamp is too new";
    case verdict::no_match:
      return "no webhook-signature matches";
  }
  return "unknown";
}

}  // namespace courier
