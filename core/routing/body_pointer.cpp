// RFC 6901 JSON pointers into a record's body, read when a filter's spec is read and followed
// without throwing (core/routing/record_filter.hpp).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/routing/record_filter.hpp"

namespace courier::routing {
namespace {

using json = nlohmann::json;

// "~01" is "~1": RFC 6901 unescapes "~1" to "/" and "~0" to "~"; any other "~" is not a pointer.
std::optional<std::string> unescaped_token(std::string_view token) {
  std::string out;
  std::size_t i = 0;
  while (i < token.size()) {
    if (token[i] != '~') {
      out.push_back(token[i]);
      ++i;
      continue;
    }
    if (i + 1 == token.size() || (token[i + 1] != '0' && token[i + 1] != '1')) {
      return std::nullopt;
    }
    out.push_back(token[i + 1] == '0' ? '~' : '/');
    i += 2;
  }
  return out;
}

// An array index as RFC 6901 writes it: digits without a leading zero ("-", past the end, names
// no element). Nine digits at most: no record holds an array of a billion elements, and the
// number cannot overflow.
std::optional<std::size_t> array_index(std::string_view token) {
  if (token.empty() || token.size() > 9 || (token.size() > 1 && token.front() == '0')) {
    return std::nullopt;
  }
  std::size_t index = 0;
  for (const char c : token) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    index = index * 10 + static_cast<std::size_t>(c - '0');
  }
  return index;
}

}  // namespace

std::optional<body_pointer> body_pointer::parse(std::string_view text) {
  body_pointer pointer;
  pointer.text_ = std::string{text};
  if (text.empty()) {
    return pointer;  // the whole body
  }
  if (text.front() != '/') {
    return std::nullopt;
  }
  text.remove_prefix(1);
  while (true) {
    const auto end = text.find('/');
    auto token = unescaped_token(text.substr(0, end));
    if (!token) {
      return std::nullopt;
    }
    pointer.tokens_.push_back(std::move(*token));
    if (end == std::string_view::npos) {
      return pointer;
    }
    text.remove_prefix(end + 1);
  }
}

const json* body_pointer::find(const json& body) const {
  const json* at = &body;
  for (const auto& token : tokens_) {
    if (at->is_object()) {
      const auto it = at->find(token);
      if (it == at->end()) {
        return nullptr;
      }
      at = &*it;
    } else if (at->is_array()) {
      const auto index = array_index(token);
      if (!index || *index >= at->size()) {
        return nullptr;
      }
      at = &(*at)[*index];
    } else {
      return nullptr;
    }
  }
  return at;
}

}  // namespace courier::routing
