#include "core/log/line_format.hpp"

#include <algorithm>

#include "core/time/civil_date.hpp"

namespace courier::log {
namespace {

std::string_view name_of(level lvl) {
  switch (lvl) {
    case level::debug:
      return "debug";
    case level::info:
      return "info";
    case level::warn:
      return "warn";
    case level::error:
      return "error";
  }
  return "info";
}

// Padded to one width, so the events line up.
std::string_view label_of(level lvl) {
  switch (lvl) {
    case level::debug:
      return "DEBUG";
    case level::info:
      return "INFO ";
    case level::warn:
      return "WARN ";
    case level::error:
      return "ERROR";
  }
  return "INFO ";
}

std::string dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

// A JSON string literal: quotes, backslashes and control characters escaped, invalid UTF-8
// replaced.
std::string quoted(std::string_view text) { return dump(nlohmann::json(std::string{text})); }

// Whether text reads the same unquoted: nothing JSON would escape or replace, and nothing that
// would blur where a key=value pair ends.
bool is_bare(std::string_view text) {
  if (text.empty() || text.find_first_of(" =\"") != std::string_view::npos) {
    return false;
  }
  const auto literal = quoted(text);
  return literal.size() == text.size() + 2 &&
         std::string_view{literal}.substr(1, text.size()) == text;
}

std::string word(std::string_view text) { return is_bare(text) ? std::string{text} : quoted(text); }

// Strings bare when they can be, an array of such strings joined by commas (a partition
// list), anything else as compact JSON.
std::string human_value(const nlohmann::json& value) {
  if (value.is_string()) {
    return word(value.get_ref<const std::string&>());
  }
  if (value.is_array() && !value.empty()) {
    const bool bare = std::all_of(value.begin(), value.end(), [&](const nlohmann::json& v) {
      return v.is_string() && is_bare(v.get_ref<const std::string&>()) &&
             (value.size() == 1 || v.get_ref<const std::string&>().find(',') == std::string::npos);
    });
    if (bare) {
      std::string out;
      for (const auto& v : value) {
        out += out.empty() ? "" : ",";
        out += v.get_ref<const std::string&>();
      }
      return out;
    }
  }
  return dump(value);
}

// The event is written bare even with spaces (it sits between the level and the first pair),
// but quoted when it holds anything a terminal would act on.
std::string human_event(std::string_view event) {
  const auto literal = quoted(event);
  const bool plain = literal.size() == event.size() + 2 && event.find('"') == std::string::npos;
  return plain ? std::string{event} : literal;
}

}  // namespace

std::optional<format_choice> parse_format_choice(std::string_view text) {
  if (text == "auto") {
    return format_choice::auto_detect;
  }
  if (text == "human") {
    return format_choice::human;
  }
  if (text == "json") {
    return format_choice::json;
  }
  return std::nullopt;
}

line_format resolve_format(format_choice choice, bool is_terminal) {
  switch (choice) {
    case format_choice::auto_detect:
      return is_terminal ? line_format::human : line_format::json;
    case format_choice::human:
      return line_format::human;
    case format_choice::json:
      return line_format::json;
  }
  return line_format::json;
}

std::string format_line(line_format format, std::int64_t unix_ms, level lvl, std::string_view event,
                        const nlohmann::json& fields) {
  switch (format) {
    case line_format::json: {
      nlohmann::json line = nlohmann::json::object();
      line["ts"] = format_rfc3339_ms(unix_ms);
      line["level"] = name_of(lvl);
      line["event"] = event;
      if (fields.is_object()) {
        for (const auto& [k, v] : fields.items()) {
          line[k] = v;
        }
      }
      return dump(line);
    }
    case line_format::human: {
      std::string line = format_rfc3339_ms(unix_ms);
      line += ' ';
      line += label_of(lvl);
      line += ' ';
      line += human_event(event);
      if (fields.is_object()) {
        for (const auto& [k, v] : fields.items()) {
          line += ' ';
          line += word(k);
          line += '=';
          line += human_value(v);
        }
      }
      return line;
    }
  }
  return {};
}

}  // namespace courier::log
