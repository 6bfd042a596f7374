#pragma once

#include <string>
#include <string_view>

// How config_error keys and values are spelled, shared by core/config*.cpp (not public).
namespace courier::config_detail {

// "routes[0].breaker" + "trip_after" -> "routes[0].breaker.trip_after"; the root path is "".
inline std::string join_key(const std::string& path, std::string_view key) {
  if (path.empty()) {
    return std::string{key};
  }
  return path + "." + std::string{key};
}

inline std::string in_quotes(std::string_view s) { return "\"" + std::string{s} + "\""; }

}  // namespace courier::config_detail
