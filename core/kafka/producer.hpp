#pragma once

#include "core/kafka/handles.hpp"
#include "core/model/record.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace courier::kafka {

// The librdkafka properties a producer gets: courier's defaults with `extra` over them.
std::map<std::string, std::string> producer_properties(
    const std::string& bootstrap, const std::map<std::string, std::string>& extra);

// An idempotent producer (enable.idempotence=true, acks=all, linger.ms=5; `extra` overrides).
// Delivery reports are served by produce(), poll() and flush() on the caller's thread and
// counted in acked() / failed(). Not copyable or movable: librdkafka holds a pointer to it.
class producer {
 public:
  explicit producer(const std::string& bootstrap,
                    const std::map<std::string, std::string>& extra = {});
  producer(const producer&) = delete;
  producer& operator=(const producer&) = delete;
  producer(producer&&) = delete;
  producer& operator=(producer&&) = delete;
  // Records still queued or in flight are purged and their reports served (ERR__PURGE_*), so
  // each on_report runs once and what it holds is freed, within a bounded wait.
  ~producer();

  // Asynchronous; partition may be RD_KAFKA_PARTITION_UA. On a full local queue it serves
  // delivery reports and retries for a bounded time, then throws kafka_error(ERR__QUEUE_FULL).
  // Throws kafka_error(ERR__FATAL) once the idempotent producer hit a fatal error.
  void produce(const std::string& topic, std::int32_t partition,
               std::optional<std::string_view> key, std::string_view value,
               const header_list& headers = {}, std::int64_t timestamp_ms = 0);

  // The broker's answer for one record: NO_ERROR once acknowledged (acks=all), else the error
  // the record finally failed with. Called from produce(), poll() or flush().
  using delivery_report =
      std::function<void(rd_kafka_resp_err_t err, std::int32_t partition, std::int64_t offset)>;

  // As above, and `on_report` is called exactly once with the broker's answer, unless this
  // throws (then the record was not queued and on_report is never called).
  void produce(const std::string& topic, std::int32_t partition,
               std::optional<std::string_view> key, std::string_view value,
               const header_list& headers, std::int64_t timestamp_ms, delivery_report on_report);

  // Asks the broker for each topic's metadata now, so that the first record for it is not held
  // while librdkafka looks an unknown topic up (once a second, librdkafka #3202): a route's
  // first tier write after its partner went down would wait that long. Returns the topics the
  // broker did not describe within `timeout`, for all of them (their first record waits for
  // the lookup).
  std::vector<std::string> learn_topics(const std::vector<std::string>& topics,
                                        std::chrono::milliseconds timeout);

  // Records queued or in flight.
  int outstanding() const;

  // Serves delivery reports for up to `timeout`; returns how many events were served.
  int poll(std::chrono::milliseconds timeout);

  // Waits for every outstanding message; throws kafka_error if some remain (outq_len).
  void flush(std::chrono::milliseconds timeout);

  std::uint64_t acked() const;
  std::uint64_t failed() const;
  rd_kafka_t* raw();

 private:
  static void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* msg, void* opaque);

  std::atomic<std::uint64_t> acked_{0};
  std::atomic<std::uint64_t> failed_{0};
  handle_ptr rk_;  // declared last: destroyed first, while the counters still exist
};

}  // namespace courier::kafka
