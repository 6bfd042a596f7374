#pragma once

// A courier config for `redrive --config` (or $COURIER_CONFIG): a route per (source, DLQ), so
// that a run returns records to their origin only when it is the source of the DLQ's route.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace courier::testing {

// Writes it to `file` and returns the path.
inline std::string write_redrive_config(
    const std::filesystem::path& file,
    const std::vector<std::pair<std::string, std::string>>& source_and_dlq) {
  nlohmann::json routes = nlohmann::json::array();
  int n = 0;
  for (const auto& [source, dlq] : source_and_dlq) {
    routes.push_back({{"name", "route" + std::to_string(n++)},
                      {"topic", source},
                      {"url", "http://127.0.0.1:1/"},
                      {"dlq_topic", dlq}});
  }
  std::ofstream{file} << nlohmann::json{
      {"kafka", {{"brokers", "127.0.0.1:9092"}}},
      {"routes", routes}}.dump();
  return file.string();
}

// The one of this process for the stands' topics: brew.shipments.v1 with brew.shipments.dlq.
inline const std::string& stand_redrive_config() {
  static const std::string path =
      write_redrive_config(std::filesystem::temp_directory_path() /
                               ("courier-redrive-config-" + std::to_string(::getpid()) + ".json"),
                           {{"brew.shipments.v1", "brew.shipments.dlq"}});
  return path;
}

}  // namespace courier::testing
