#pragma once

// What courier's JSON log says of a consumer's partitions: the "partitions assigned",
// "partitions revoked" and "partitions lost" lines, each listing its partitions compacted, one
// entry a topic ("t[0-3,5]").

#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/partition_names.hpp"

namespace courier::e2e {

// One line of courier's JSON log, or a discarded value when the line is not JSON.
inline nlohmann::json parse_line(const std::string& line) {
  return nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
}

// Each partition ("topic[3]") of the log's lines whose event is `event`, in the log's order.
template <typename Visit>
void for_each_partition_event(const std::string& log, Visit visit) {
  std::istringstream in{log};
  std::string line;
  while (std::getline(in, line)) {
    const auto doc = parse_line(line);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("partitions") ||
        !doc.at("partitions").is_array()) {
      continue;
    }
    const auto event = doc.value("event", "");
    for (const auto& entry : doc.at("partitions")) {
      for (const auto& p : testing::expand_partition_entry(entry.get<std::string>())) {
        visit(event, p);
      }
    }
  }
}

// The partitions an instance holds at the end of its log: each "partitions assigned" adds its
// partitions, each "partitions revoked" or "partitions lost" removes its (eager or cooperative
// alike).
inline std::set<std::string> held_partitions(const std::string& log) {
  std::set<std::string> held;
  for_each_partition_event(log, [&](const std::string& event, const std::string& p) {
    if (event == "partitions assigned") {
      held.insert(p);
    } else if (event == "partitions revoked" || event == "partitions lost") {
      held.erase(p);
    }
  });
  return held;
}

// Every partition the log says was given up ("partitions revoked" or "partitions lost").
inline std::set<std::string> given_up_partitions(const std::string& log) {
  std::set<std::string> out;
  for_each_partition_event(log, [&](const std::string& event, const std::string& p) {
    if (event == "partitions revoked" || event == "partitions lost") {
      out.insert(p);
    }
  });
  return out;
}

}  // namespace courier::e2e
