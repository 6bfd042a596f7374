#pragma once

// The body of the admin plane's JSON answers: one line and a newline, for curl.

#include <string>

#include <nlohmann/json.hpp>

namespace courier::admin {

inline std::string json_body(const nlohmann::json& j) { return j.dump() + "\n"; }

}  // namespace courier::admin
