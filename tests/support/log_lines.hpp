#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace courier::testing {

// The rest of every line of `log` that starts with `prefix`.
inline std::vector<std::string> lines_after(const std::string& log, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in{log};
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) {
      out.push_back(line.substr(prefix.size()));
    }
  }
  return out;
}

// The admin port of a running courier, from its "admin listener bound" log line.
inline std::optional<std::uint16_t> admin_port(const std::string& log) {
  std::istringstream lines{log};
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.value("event", "") == "admin listener bound" && j.contains("port")) {
      return j.at("port").get<std::uint16_t>();
    }
  }
  return std::nullopt;
}

}  // namespace courier::testing
