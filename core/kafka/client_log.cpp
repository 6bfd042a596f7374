#include "core/kafka/client_log.hpp"

#include <atomic>

namespace courier::kafka {
namespace {

std::atomic<client_log_sink> installed{nullptr};

}  // namespace

void set_client_log_sink(client_log_sink sink) { installed.store(sink); }

void forward_client_log(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  const client_log_sink sink = installed.load();
  if (sink == nullptr) {
    rd_kafka_log_print(rk, level, fac, buf);
    return;
  }
  sink(level, fac != nullptr ? fac : "", rk != nullptr ? rd_kafka_name(rk) : "",
       buf != nullptr ? buf : "");
}

}  // namespace courier::kafka
