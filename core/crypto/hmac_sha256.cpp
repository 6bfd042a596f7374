#include "core/crypto/hmac_sha256.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <stdexcept>

namespace courier {
namespace {

struct mac_deleter {
  void operator()(EVP_MAC* mac) const { EVP_MAC_free(mac); }
};
using mac_ptr = std::unique_ptr<EVP_MAC, mac_deleter>;

struct working_ctx_deleter {
  void operator()(EVP_MAC_CTX* ctx) const { EVP_MAC_CTX_free(ctx); }
};
using working_ctx_ptr = std::unique_ptr<EVP_MAC_CTX, working_ctx_deleter>;

}  // namespace

void hmac_sha256::ctx_deleter::operator()(evp_mac_ctx_st* ctx) const { EVP_MAC_CTX_free(ctx); }

hmac_sha256::hmac_sha256(std::string_view key) {
  const mac_ptr mac{EVP_MAC_fetch(nullptr, "HMAC", nullptr)};
  if (!mac) {
    throw std::runtime_error("hmac_sha256: EVP_MAC_fetch(HMAC) failed");
  }
  // The context holds its own reference to the MAC; ours goes at the end of the scope.
  std::unique_ptr<EVP_MAC_CTX, ctx_deleter> ctx{EVP_MAC_CTX_new(mac.get())};
  if (!ctx) {
    throw std::runtime_error("hmac_sha256: EVP_MAC_CTX_new failed");
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
    throw std::runtime_error("hmac_sha256: EVP_MAC_init failed");
  }
  keyed_ = std::shared_ptr<const evp_mac_ctx_st>(ctx.release(), ctx_deleter{});
}

hmac_sha256::digest hmac_sha256::mac(std::initializer_list<std::string_view> parts) const {
  // Why a copy of the template and not EVP_MAC_init(ctx, NULL, ...) on a shared context: the
  // re-init mutates the context, so one key could not serve two threads, and re-initialising a
  // provided MAC with a NULL key only became well defined in a 3.0 patch release (openssl#18100).
  const working_ctx_ptr ctx{EVP_MAC_CTX_dup(keyed_.get())};
  if (!ctx) {
    throw std::runtime_error("hmac_sha256: EVP_MAC_CTX_dup failed");
  }
  for (const std::string_view part : parts) {
    if (!part.empty() &&
        EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(part.data()),
                       part.size()) != 1) {
      throw std::runtime_error("hmac_sha256: EVP_MAC_update failed");
    }
  }
  digest out{};
  std::size_t out_len = 0;
  if (EVP_MAC_final(ctx.get(), out.data(), &out_len, out.size()) != 1 || out_len != out.size()) {
    throw std::runtime_error("hmac_sha256: EVP_MAC_final failed");
  }
  return out;
}

}  // namespace courier
