#include "core/model/idempotency_key.hpp"

#include <algorithm>

#include "core/crypto/sha256.hpp"

namespace courier {
namespace {

bool printable_ascii(unsigned char c) { return c >= 0x20 && c <= 0x7e; }

void percent_encode(std::string& out, unsigned char c) {
  static constexpr char digits[] = "0123456789ABCDEF";
  out.push_back('%');
  out.push_back(digits[c >> 4]);
  out.push_back(digits[c & 0x0f]);
}

// A carried key that goes out as it is: short, printable, and no space at either end (HTTP
// strips a field value's outer whitespace, so " k" and "k" would reach the receiver as one key).
bool sendable_as_is(std::string_view key) {
  return key.size() <= max_carried_key_bytes && key.front() != ' ' && key.back() != ' ' &&
         std::all_of(key.begin(), key.end(),
                     [](char ch) { return printable_ascii(static_cast<unsigned char>(ch)); });
}

}  // namespace

std::string idempotency_key_for(const record& r) {
  if (auto carried = find_header(r.headers, idempotency_key_header); carried && !carried->empty()) {
    // A producer's key is kept, but bounded: a long or binary one (a 900 KB blob would become an
    // unsendable header and a tier record over max.message.bytes) goes as its SHA-256, which is
    // the same for the same bytes on every attempt, hop and redrive, and passes as it is when
    // carried on.
    if (sendable_as_is(*carried)) {
      return std::string{*carried};
    }
    return std::string{digest_key_prefix} + sha256_hex(*carried);
  }
  return r.topic + ":" + std::to_string(r.partition) + ":" + std::to_string(r.offset);
}

std::string idempotency_key_sf_string(std::string_view key) {
  std::string out;
  out.reserve(key.size() + 2);
  out.push_back('"');
  for (const char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '%' || !printable_ascii(c)) {
      percent_encode(out, c);
      continue;
    }
    if (c == '\\' || c == '"') {
      out.push_back('\\');
    }
    out.push_back(ch);
  }
  out.push_back('"');
  return out;
}

std::string webhook_id_for(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (const char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '.' || c == '%' || c == ' ' || !printable_ascii(c)) {
      percent_encode(out, c);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

}  // namespace courier
