#pragma once

// Reads back a compacted partition list entry of courier's log ("t[0-3,5]", see
// core/log/partition_list.hpp) as the partitions' names ("t[0]", ... "t[5]").

#include <string>
#include <vector>

namespace courier::testing {

inline std::vector<std::string> expand_partition_entry(const std::string& entry) {
  std::vector<std::string> names;
  const auto open = entry.rfind('[');
  if (open == std::string::npos || entry.empty() || entry.back() != ']') {
    return names;
  }
  const auto topic = entry.substr(0, open);
  std::size_t at = open + 1;
  while (at < entry.size() - 1) {
    auto end = entry.find_first_of(",]", at);
    const auto run = entry.substr(at, end - at);
    const auto dash = run.find('-');
    const int first = std::stoi(run.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(run.substr(dash + 1));
    for (int p = first; p <= last; ++p) {
      names.push_back(topic + "[" + std::to_string(p) + "]");
    }
    at = end + 1;
  }
  return names;
}

}  // namespace courier::testing
