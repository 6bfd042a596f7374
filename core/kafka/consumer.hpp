#pragma once

#include "core/kafka/consumer_stats.hpp"
#include "core/kafka/group_consumer.hpp"
#include "core/kafka/handles.hpp"
#include "core/model/partition_id.hpp"
#include "core/model/record.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace courier::kafka {

struct consumer_settings {
  std::string bootstrap;
  std::string group_id;
  std::vector<std::string> topics;
  std::map<std::string, std::string> extra;  // overrides the defaults below

  // librdkafka's prefetch bound as courier sets it unless `extra` does (consumer.cpp says why).
  static constexpr const char* default_queued_max_messages_kbytes = "32768";
  // The bound in effect: `extra`'s, or courier's default.
  [[nodiscard]] std::string queued_max_messages_kbytes() const {
    const auto it = extra.find("queued.max.messages.kbytes");
    return it == extra.end() ? default_queued_max_messages_kbytes : it->second;
  }
};

// The librdkafka properties a consumer gets: courier's defaults (consumer.cpp says why each),
// with `extra` over them.
std::map<std::string, std::string> consumer_properties(const consumer_settings& s);

// A high-level KafkaConsumer driven from one thread (a detached CAF actor). Defaults:
// enable.auto.commit=true, enable.auto.offset.store=false, auto.offset.reset=earliest,
// partition.assignment.strategy=range,roundrobin (eager), statistics.interval.ms=5000. Offsets are
// committed only as the owner stores them. Every callback runs on the thread that calls poll() (or
// close()). Not copyable or movable: librdkafka holds a pointer to it.
class consumer final : public group_consumer {
 public:
  struct callbacks {
    // After the partitions were assigned: re-apply the owner's pause state here.
    std::function<void(const std::vector<partition_id>&)> on_assigned;
    // Before the assignment changes: store final offsets here; the wrapper then commits
    // synchronously (a failed commit goes to on_error: the next owner redelivers from the last
    // committed offset) and forgets the partitions' pause state.
    std::function<void(const std::vector<partition_id>&)> on_revoked;
    // Non-fatal errors and partition EOF; without a handler they go to stderr.
    std::function<void(const std::string&)> on_error;
    // Every statistics.interval.ms (5 s by default here): the fetched partitions' commit
    // points, high watermarks and lag (a paused partition's watermarks asked of the broker).
    std::function<void(const std::vector<partition_position>&)> on_positions;
    // An offset commit (automatic, every auto.commit.interval.ms, or on revoke) that failed,
    // with why; the next owner redelivers from the last committed offset.
    std::function<void(const std::string&)> on_commit_failed;
    // Whether a broker connection is up: false at once when librdkafka reports all brokers
    // down, and from each statistics report.
    std::function<void(bool)> on_broker_up;
  };

  consumer(const consumer_settings& s, callbacks cb);
  consumer(const consumer&) = delete;
  consumer& operator=(const consumer&) = delete;
  consumer(consumer&&) = delete;
  consumer& operator=(consumer&&) = delete;
  ~consumer() override;  // close() if not closed; errors go to on_error

  // Waits up to `timeout` for the first record, then takes what is ready without waiting, up
  // to max_records (at least 1). Throws kafka_error only on a fatal error, and rethrows what a
  // callback threw once the rebalance it was part of has completed.
  std::vector<record> poll(std::chrono::milliseconds timeout, std::size_t max_records) override;

  // Stores `next_offset` (last done offset + 1) for the next commit. Returns false when the
  // partition is not assigned to this consumer; throws kafka_error on other errors.
  bool store_offset(const partition_id& p, std::int64_t next_offset) override;

  // The same for many partitions in one librdkafka call (rd_kafka_offsets_store of one list).
  // Partitions not assigned are skipped; returns how many were stored.
  std::size_t store_offsets(
      const std::vector<std::pair<partition_id, std::int64_t>>& offsets) override;

  // Commits the stored offsets of the current assignment; nothing stored is fine.
  void commit_sync() override;

  // Resume only resumes partitions paused through this wrapper (librdkafka 2.0.2 can rewind a
  // partition that is resumed without being paused). Both check every partition's error.
  void pause(const std::vector<partition_id>& ps) override;
  void resume(const std::vector<partition_id>& ps) override;

  std::vector<partition_id> assignment() const override;

  // commit_sync(), then leave the group (on_revoked runs once more). Idempotent.
  void close() override;

  rd_kafka_t* raw();

 private:
  static void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                           rd_kafka_topic_partition_list_t* partitions, void* opaque);
  static void on_kafka_error(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  static int on_stats(rd_kafka_t* rk, char* json, std::size_t json_len, void* opaque);
  static void on_auto_commit(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                             rd_kafka_topic_partition_list_t* offsets, void* opaque);
  // The statistics' positions with each paused partition's watermarks asked of the broker.
  std::vector<partition_position> with_paused_watermarks(std::vector<partition_position> ps);
  void commit_failed(const std::string& why);
  void handle_rebalance(rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* partitions);
  void assign(const rd_kafka_topic_partition_list_t* partitions);
  void unassign(const rd_kafka_topic_partition_list_t* partitions);
  void report(const std::string& message);
  void rethrow_pending();

  callbacks cb_;
  std::set<partition_id> paused_;
  std::exception_ptr pending_;  // thrown inside a librdkafka callback, rethrown after it
  bool fatal_ = false;
  bool closed_ = false;
  handle_ptr rk_;  // declared last: destroyed first, while the members above still exist
};

}  // namespace courier::kafka
