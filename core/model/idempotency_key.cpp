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
    return std::string{*carried};
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
