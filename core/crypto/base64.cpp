#include "core/crypto/base64.hpp"

#include <openssl/evp.h>

#include <climits>
#include <cstddef>
#include <stdexcept>

namespace courier {
namespace {

bool in_alphabet(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX / 4 * 3)) {
    throw std::length_error("base64_encode: input too long");
  }
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');  // and EVP_EncodeBlock's NUL
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0 || text.size() > static_cast<std::size_t>(INT_MAX)) {
    return std::nullopt;
  }
  std::size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') {
    ++padding;
  }
  for (std::size_t i = 0; i + padding < text.size(); ++i) {
    if (!in_alphabet(text[i])) {
      return std::nullopt;
    }
  }
  if (text.empty()) {
    return std::string{};
  }
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0 || static_cast<std::size_t>(n) != out.size()) {
    return std::nullopt;
  }
  // EVP_DecodeBlock counts each `=` as a decoded zero byte.
  out.resize(out.size() - padding);
  return out;
}

}  // namespace courier
