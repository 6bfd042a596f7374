#pragma once

// The HTTP client's defaults, declared once: client_settings (client.hpp) starts from them, and
// so does a route's http block (core/config), which composes the client's settings.

#include <chrono>
#include <cstddef>

namespace courier::http::defaults {

inline constexpr std::size_t max_connections = 256;
inline constexpr std::chrono::milliseconds timeout{5000};
inline constexpr std::chrono::milliseconds connect_timeout{2000};
inline constexpr std::size_t max_response_bytes = 65536;
inline constexpr std::size_t max_header_bytes = 8192;
inline constexpr std::chrono::milliseconds max_connection_age{std::chrono::minutes{5}};

}  // namespace courier::http::defaults
