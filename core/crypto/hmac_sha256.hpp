#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string_view>

// OpenSSL's type, forward-declared so that users of the key need no OpenSSL headers.
struct evp_mac_ctx_st;

namespace courier {

// An HMAC-SHA256 key, set up once: the HMAC is fetched and keyed in the constructor into a
// template context that is never changed afterwards. Each mac() duplicates the template
// (EVP_MAC_CTX_dup copies the keyed inner and outer digest states), so it neither fetches nor
// schedules the key again, and concurrent mac() calls on one key are safe: they only read the
// template. Copies share the template.
class hmac_sha256 {
 public:
  static constexpr std::size_t size = 32;
  using digest = std::array<unsigned char, size>;

  // Throws std::runtime_error when OpenSSL cannot set the key up. An empty key is legal HMAC.
  explicit hmac_sha256(std::string_view key);

  // The MAC of the concatenation of `parts`, as if they were one message.
  [[nodiscard]] digest mac(std::initializer_list<std::string_view> parts) const;
  [[nodiscard]] digest mac(std::string_view message) const { return mac({message}); }

 private:
  struct ctx_deleter {
    void operator()(evp_mac_ctx_st* ctx) const;
  };
  std::shared_ptr<const evp_mac_ctx_st> keyed_;
};

}  // namespace courier
