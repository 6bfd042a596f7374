#pragma once

#include "core/config/config.hpp"

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace courier::testing {

// A getenv that knows exactly `vars` and nothing else.
inline getenv_function fake_env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) {
      return std::nullopt;
    }
    return it->second;
  };
}

}  // namespace courier::testing
