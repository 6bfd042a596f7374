#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace courier {

// A record's value: immutable bytes that every copy shares (the polled record, each attempt's
// request body on the wire, the retry-tier or DLQ record), so carrying a record costs a
// reference count, not a copy of its value. Safe to share across threads: nothing writes the
// bytes after construction.
class payload {
 public:
  payload() = default;
  // Implicit, so a record's value can be written as the string it is.
  payload(std::string bytes)  // NOLINT(google-explicit-constructor)
      : bytes_(std::make_shared<const std::string>(std::move(bytes))) {}
  payload(const char* text)  // NOLINT(google-explicit-constructor)
      : payload(std::string{text}) {}
  payload(const char* data, std::size_t size) : payload(std::string{data, size}) {}

  [[nodiscard]] const std::string& str() const { return bytes_ ? *bytes_ : empty_bytes(); }
  [[nodiscard]] std::string_view view() const { return str(); }
  // Read like a string_view wherever one is taken (signers, producers, parsers).
  operator std::string_view() const { return view(); }  // NOLINT(google-explicit-constructor)
  [[nodiscard]] std::size_t size() const { return str().size(); }
  [[nodiscard]] bool empty() const { return str().empty(); }
  friend bool operator==(const payload& a, const payload& b) { return a.view() == b.view(); }
  friend bool operator==(const payload& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const payload& a, const std::string& b) { return a.view() == b; }
  friend bool operator==(const payload& a, const char* b) { return a.view() == b; }
  friend bool operator==(std::string_view a, const payload& b) { return b == a; }
  friend bool operator==(const std::string& a, const payload& b) { return b == a; }
  friend bool operator==(const char* a, const payload& b) { return b == a; }
  template <class T>
  friend bool operator!=(const payload& a, const T& b) {
    return !(a == b);
  }
  friend std::ostream& operator<<(std::ostream& out, const payload& p) { return out << p.str(); }

 private:
  static const std::string& empty_bytes() {
    static const std::string none;
    return none;
  }

  std::shared_ptr<const std::string> bytes_;
};

}  // namespace courier
