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
  event(line.level, line.event, fields);
}

}  // namespace courier::log
