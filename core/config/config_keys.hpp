#pragma once

#include <optional>
#include <string>
#include <vector>

namespace courier {

// One key of the config file, as docs/configuration.md's reference table names it.
struct config_key {
  std::string path;  // "routes[].breaker.trip_after"
  // As the docs show it ("15s", "[401, 403]", "\"plain\""); empty for an empty text; none for a
  // key that must be set.
  std::optional<std::string> default_value;
};

// Every key of the config file with its default, from the field lists (config_fields.hpp),
// in the order of the file's sections.
std::vector<config_key> config_keys();

}  // namespace courier
