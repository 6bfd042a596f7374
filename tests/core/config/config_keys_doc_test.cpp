// Every key the field lists declare (core/config/config_fields.hpp) is in the reference table of
// docs/configuration.md with its default, and every key the table names is one of them.

#include "core/config/config_keys.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace courier {
namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" `");
  const auto last = s.find_last_not_of(" `");
  return first == std::string::npos ? std::string{} : s.substr(first, last - first + 1);
}

// The cells of a Markdown table row ("| a | b |"); "\|" stays within its cell.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '|' && line[i - 1] != '\\') {
      out.push_back(trimmed(cell));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return out;
}

// docs/configuration.md's reference table ("## Keys"): key -> default cell.
std::map<std::string, std::string> reference_table() {
  std::ifstream in{std::string{COURIER_SOURCE_DIR} + "/docs/configuration.md"};
  std::map<std::string, std::string> rows;
  bool in_keys = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind('#', 0) == 0) {
      in_keys = line == "## Keys";  // not its subsections' tables
    } else if (in_keys && line.rfind("| `", 0) == 0) {
      const auto row = cells(line);
      if (row.size() >= 3) {
        rows.emplace(row[0], row[1]);
      }
    }
  }
  return rows;
}

bool is_number(const std::string& s, double& out) {
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size();
}

// The cell shows `value`: as it is, or followed by what it means ("0 (one second of requests)"),
// or as the same number ("2.0" for 2).
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters): named at every call
bool shows(const std::string& cell, const std::string& value) {
  const std::string c = trimmed(cell);
  if (c == value || c.rfind(value + " ", 0) == 0) {
    return true;
  }
  double a = 0;
  double b = 0;
  return is_number(c, a) && is_number(value, b) && a == b;
}

TEST(ConfigKeysDoc, EveryKeyIsInTheReferenceTableWithItsDefault) {
  const auto table = reference_table();
  ASSERT_FALSE(table.empty()) << "docs/configuration.md has no \"## Keys\" table";
  for (const auto& key : config_keys()) {
    const auto row = table.find(key.path);
    if (row == table.end()) {
      ADD_FAILURE() << key.path << " is not in docs/configuration.md's reference table";
      continue;
    }
    if (key.default_value && !key.default_value->empty()) {
      EXPECT_TRUE(shows(row->second, *key.default_value))
          << key.path << ": the docs show the default \"" << row->second << "\", the code has \""
          << *key.default_value << "\"";
    }
  }
}

TEST(ConfigKeysDoc, EveryKeyOfTheReferenceTableIsAKeyOrASectionOfOne) {
  const auto keys = config_keys();
  for (const auto& [path, default_cell] : reference_table()) {
    bool found = false;
    for (const auto& key : keys) {
      found = found || key.path == path || key.path.rfind(path + ".", 0) == 0;
    }
    EXPECT_TRUE(found) << path << " is in docs/configuration.md but is no config key";
  }
}

}  // namespace
}  // namespace courier
