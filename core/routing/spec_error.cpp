#include "core/routing/spec_error.hpp"

#include <utility>

#include <nlohmann/json.hpp>

namespace courier::routing {
namespace {

std::string message(const std::string& path, const std::string& problem) {
  return path.empty() ? problem : path + ": " + problem;
}

}  // namespace

spec_error::spec_error(std::string path, std::string problem)
    : std::runtime_error(message(path, problem)),
      path_(std::move(path)),
      problem_(std::move(problem)) {}

std::string join_spec_path(const std::string& path, std::string_view key) {
  if (path.empty()) {
    return std::string{key};
  }
  return path + "." + std::string{key};
}

std::string in_quotes(std::string_view text) {
  // Replace, not throw, on bytes that are not UTF-8: a spec built in code may hold any bytes.
  return nlohmann::json(std::string{text})
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace courier::routing
