#include "core/config/secret_file.hpp"

#include <sstream>

#include "core/config/config.hpp"
#include "core/config/config_key.hpp"

namespace courier {
namespace {

using config_detail::in_quotes;

std::string content_or_throw(const std::string& path, const std::string& key) {
  auto read = read_bounded_file(path);
  if (!read.problem.empty()) {
    throw config_error{key, "secret file " + in_quotes(path) + ": " + read.problem};
  }
  return std::move(read.text);
}

}  // namespace

std::string read_secret_file(const std::string& path, const std::string& key) {
  const std::string content = content_or_throw(path, key);
  const std::string_view secret = trim_secret(content);
  if (secret.empty()) {
    throw config_error{key, "secret file " + in_quotes(path) + " is empty"};
  }
  return std::string{secret};
}

std::vector<std::string> read_secret_lines(const std::string& path, const std::string& key) {
  const std::string content = content_or_throw(path, key);
  std::vector<std::string> out;
  std::istringstream lines{content};
  for (std::string line; std::getline(lines, line);) {
    const std::string_view secret = trim_secret(line);
    if (!secret.empty()) {
      out.emplace_back(secret);
    }
  }
  if (out.empty()) {
    throw config_error{key, "secret file " + in_quotes(path) + " is empty"};
  }
  return out;
}

}  // namespace courier
