#pragma once

#include <librdkafka/rdkafka.h>

#include <string_view>

namespace courier::kafka {

// Where the log lines of librdkafka's clients go: every client made from make_conf (consumers,
// producers, admin handles, the mock cluster's). Left alone, librdkafka prints them on stderr
// in its own format ("%4|1796346401.720|CONFWARN|rdkafka#producer-7| ..."), which a JSON log
// stream cannot parse.
//   syslog_level: 0 (emergency) .. 7 (debug); facility: librdkafka's tag (CONFWARN, FAIL, ...);
//   client: the client's name (rdkafka#producer-7).
// Called on librdkafka's own threads: the sink must be thread-safe.
using client_log_sink = void (*)(int syslog_level, std::string_view facility,
                                 std::string_view client, std::string_view message);

// Sets the sink for every client made afterwards and every one already made (they look it up
// per line); nullptr restores librdkafka's own format on stderr.
void set_client_log_sink(client_log_sink sink);

// librdkafka's log_cb on every configuration make_conf builds: hands the line to the sink, or
// prints it as librdkafka would without one.
void forward_client_log(const rd_kafka_t* rk, int level, const char* fac, const char* buf);

}  // namespace courier::kafka
