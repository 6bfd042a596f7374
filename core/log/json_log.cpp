#include "core/log/json_log.hpp"

#include <chrono>
#include <ctime>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

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

// spdlog gives us a thread-safe sink and level filtering; the line itself is our JSON.
spdlog::logger& logger() {
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto l = spdlog::stderr_logger_mt("courier-json");
    l->set_pattern("%v");
    l->set_level(spdlog::level::info);
    return l;
  }();
  return *instance;
}

std::string utc_timestamp() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  const std::time_t t = system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  const auto n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%.*s.%03dZ", static_cast<int>(n), buf, static_cast<int>(ms));
  return out;
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
  nlohmann::json line = nlohmann::json::object();
  line["ts"] = utc_timestamp();
  line["level"] = name_of(lvl);
  line["event"] = name;
  if (fields.is_object()) {
    for (const auto& [k, v] : fields.items()) {
      line[k] = v;
    }
  }
  l.log(to_spdlog(lvl), line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace courier::log
