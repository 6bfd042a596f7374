#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "core/model/log_line.hpp"

namespace courier::log {

// The levels a line is written at: the model's, which core classes name in their log_lines.
using level = log_level;

// Sets the minimum level ("trace", "debug", "info", "warn", "error", "critical", "off");
// returns false for an unknown name.
bool set_level(std::string_view name);

// Writes one JSON object per line to stderr: {"ts": ..., "level": ..., "event": ..., fields...}.
// Thread-safe; the line is written whole.
void event(level lvl, std::string_view name,
           const nlohmann::json& fields = nlohmann::json::object());

inline void debug(std::string_view name, const nlohmann::json& f = nlohmann::json::object()) {
  event(level::debug, name, f);
}
inline void info(std::string_view name, const nlohmann::json& f = nlohmann::json::object()) {
  event(level::info, name, f);
}
inline void warn(std::string_view name, const nlohmann::json& f = nlohmann::json::object()) {
  event(level::warn, name, f);
}
inline void error(std::string_view name, const nlohmann::json& f = nlohmann::json::object()) {
  event(level::error, name, f);
}

}  // namespace courier::log
