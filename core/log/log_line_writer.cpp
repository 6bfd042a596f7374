#include "core/log/log_line_writer.hpp"

#include <nlohmann/json.hpp>

#include "core/log/json_log.hpp"

namespace courier::log {

void write(const log_line& line, std::uint64_t suppressed) {
  auto fields = nlohmann::json::object();
  for (const auto& [name, value] : line.fields) {
    std::visit([&fields, &name = name](const auto& v) { fields[name] = v; }, value);
  }
  if (suppressed > 0) {
    fields["suppressed"] = suppressed;
  }
  switch (line.level) {
    case log_level::debug:
      debug(line.event, fields);
      return;
    case log_level::info:
      info(line.event, fields);
      return;
    case log_level::warn:
      warn(line.event, fields);
      return;
    case log_level::error:
      error(line.event, fields);
      return;
  }
}

}  // namespace courier::log
