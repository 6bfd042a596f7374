#include "core/log/json_log.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <utility>

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "core/log/log_output.hpp"

namespace courier::log {
namespace {

spdlog::level::level_enum to_spdlog(level lvl) {
  switch (lvl) {
    case level::debug:
      return spdlog::level::debug;
    case level::info:
      return spdlog::level::info;
    case level::warn:
      return spdlog::level::warn;
    case level::error:
      return spdlog::level::err;
  }
  return spdlog::level::info;
}

std::atomic<line_format>& current_format() {
  static std::atomic<line_format> format{
      resolve_format(format_choice::auto_detect, isatty(STDERR_FILENO) != 0)};
  return format;
}

const std::shared_ptr<terminal_sink>& sink_ptr() {
  static const auto instance = std::make_shared<terminal_sink>(stderr);
  return instance;
}

terminal_sink& sink() { return *sink_ptr(); }

// spdlog gives us level filtering and a locked sink; the line itself is ours (format_line).
spdlog::logger& logger() {
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto l = std::make_shared<spdlog::logger>("courier", sink_ptr());
    l->set_level(spdlog::level::info);
    return l;
  }();
  return *instance;
}

std::int64_t unix_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

bool set_level(std::string_view name) {
  if (name == "trace") {
    logger().set_level(spdlog::level::trace);
  } else if (name == "debug") {
    logger().set_level(spdlog::level::debug);
  } else if (name == "info") {
    logger().set_level(spdlog::level::info);
  } else if (name == "warn") {
    logger().set_level(spdlog::level::warn);
  } else if (name == "error") {
    logger().set_level(spdlog::level::err);
  } else if (name == "critical") {
    logger().set_level(spdlog::level::critical);
  } else if (name == "off") {
    logger().set_level(spdlog::level::off);
  } else {
    return false;
  }
  return true;
}

void event(level lvl, std::string_view name, const nlohmann::json& fields) {
  auto& l = logger();
  if (!l.should_log(to_spdlog(lvl))) {
    return;
  }
  const auto line = format_line(current_format().load(), unix_now_ms(), lvl, name, fields);
  l.log(to_spdlog(lvl), spdlog::string_view_t{line.data(), line.size()});
}

void set_format(line_format format) { current_format().store(format); }

void set_output(std::FILE* out) { sink().set_output(out); }

void set_footer(footer f) { sink().set_footer(std::move(f)); }

void remove_footer() { sink().remove_footer(); }

void with_output_locked(const std::function<void()>& draw) { sink().locked(draw); }

}  // namespace courier::log
