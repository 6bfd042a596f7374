#include "core/model/idempotency_key.hpp"

namespace courier {
namespace {

bool printable_ascii(unsigned char c) { return c >= 0x20 && c <= 0x7e; }

void percent_encode(std::string& out, unsigned char c) {
  static constexpr char digits[] = "0123456789ABCDEF";
  out.push_back('%');
  out.push_back(digits[c >> 4]);
  out.push_back(digits[c & 0x0f]);
}

}  // namespace

std::string idempotency_key_for(const record& r) {
  if (auto carried = find_header(r.headers, idempotency_key_header); carried && !carried->empty()) {
    // A carried key goes into an HTTP header as it is, except bytes a header value cannot
    // carry (CR, LF, NUL and the other controls, non-ASCII): those are percent-encoded, so a
    // hostile key can neither inject a header nor make the request unsendable. The same key
    // always encodes the same way, so it stays stable across attempts and redrives.
    std::string key;
    key.reserve(carried->size());
    for (const char ch : *carried) {
      const auto c = static_cast<unsigned char>(ch);
      if (printable_ascii(c)) {
        key.push_back(ch);
      } else {
        percent_encode(key, c);
      }
    }
    return key;
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
