#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace courier {

// A line a pure core class asks its actor to log: core classes do not log, they say what
// happened (core/log/log_line_writer.hpp writes it).
enum class log_level : std::uint8_t { debug, info, warn, error };

using log_value = std::variant<std::string, std::int64_t>;
using log_fields = std::vector<std::pair<std::string, log_value>>;

struct log_line {
  log_level level = log_level::info;
  std::string event;
  log_fields fields;
  // A line per record or per attempt, which an outage repeats for every record: the shell
  // samples these (core/log/event_sampler); one-off lines (a route flagged) always go out.
  bool per_record = false;
};

}  // namespace courier
