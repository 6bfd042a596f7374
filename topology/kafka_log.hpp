#pragma once

#include <string_view>

#include "core/log/json_log.hpp"

namespace courier::topology {

// The courier log level of a librdkafka line of syslog severity `syslog_level`: emergency to
// error (0-3) error, warning (4) warn, notice and info (5-6) info, debug (7) debug.
log::level librdkafka_level(int syslog_level);

// A librdkafka log line as a courier log event (kafka::set_client_log_sink):
// {"event":"librdkafka","facility":"CONFWARN","client":"rdkafka#producer-7","message":"..."}.
void log_librdkafka(int syslog_level, std::string_view facility, std::string_view client,
                    std::string_view message);

}  // namespace courier::topology
