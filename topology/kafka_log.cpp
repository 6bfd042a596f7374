#include "topology/kafka_log.hpp"

#include <string>

namespace courier::topology {

log::level librdkafka_level(int syslog_level) {
  if (syslog_level <= 3) {
    return log::level::error;
  }
  if (syslog_level == 4) {
    return log::level::warn;
  }
  if (syslog_level <= 6) {
    return log::level::info;
  }
  return log::level::debug;
}

void log_librdkafka(int syslog_level, std::string_view facility, std::string_view client,
                    std::string_view message) {
  log::event(librdkafka_level(syslog_level), "librdkafka",
             {{"facility", std::string{facility}},
              {"client", std::string{client}},
              {"message", std::string{message}}});
}

}  // namespace courier::topology
