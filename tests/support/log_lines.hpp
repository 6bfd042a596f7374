#pragma once

#include <sstream>
#include <string>
#include <vector>

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

}  // namespace courier::testing
