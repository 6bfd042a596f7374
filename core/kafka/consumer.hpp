#pragma once

#include "core/kafka/assignor_state_watch.hpp"
#include "core/kafka/commit_hold.hpp"
#include "core/kafka/consumer_properties.hpp"
#include "core/kafka/consumer_stats.hpp"
#include "core/kafka/group_consumer.hpp"
#include "core/kafka/handles.hpp"
#include "core/kafka/rebalance_protocol.hpp"
#include "core/kafka/watermark_prober.hpp"
#include "core/model/partition_id.hpp"
#include "core/model/record.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace courier::kafka {

// How long a synchronous commit waits for the member's join to be answered (commit_hold.hpp).
inline constexpr std::chrono::milliseconds join_wait_bound{10000};

// How long an assignment waits for the group's committed offsets and metadata (OffsetFetch)
// before it starts without them (from librdkafka's own committed offsets, no offset map).
inline constexpr std::chrono::milliseconds committed_fetch_bound{10000};

// A high-level KafkaConsumer driven from one thread (a detached CAF actor). Defaults:
// enable.auto.commit=false (the owner commits, with an offset map in the metadata),
// auto.offset.reset=earliest, partition.assignment.strategy=cooperative-sticky (incremental
// assign and unassign; eager assignors work too), statistics.interval.ms=5000. Every
// callback runs on the thread that calls poll() (or commit(), close()). Not copyable or
// movable: librdkafka holds a pointer to it.
class consumer final : public group_consumer {
 public:
  struct callbacks {
    // After the partitions were assigned, with what the group committed for each (read before
    // the fetch starts, which starts at that offset): re-apply the owner's pause state here.
    std::function<void(const std::vector<assigned_partition>&)> on_assigned;
    // Before the partitions are given up (only the ones that move, with cooperative-sticky);
    // `lost`: the session timed out and another member may have them already, so nothing can
    // be committed for them. Commit final offsets here and answer `now`, or answer `later` and
    // call complete_revoke() (the group waits for it, up to its rebalance timeout). The wrapper
    // forgets the partitions' pause state when it gives them up.
    std::function<revoke_timing(const std::vector<partition_id>&, bool lost)> on_revoked;
    // Each commit's outcome, partition by partition (sync: inside commit(); async: inside poll()).
    std::function<void(const std::vector<commit_outcome>&)> on_committed;
    // Non-fatal errors and partition EOF; without a handler they go to stderr.
    std::function<void(const std::string&)> on_error;
    // Every statistics.interval.ms (5 s by default here): the fetched partitions' commit
    // points, high watermarks and lag (a paused partition's watermarks asked of the broker).
    std::function<void(const std::vector<partition_position>&)> on_positions;
    // Whether a broker connection is up: false at once when librdkafka reports all brokers
    // down, and from each statistics report.
    std::function<void(bool)> on_broker_up;
  };

  consumer(const consumer_settings& s, callbacks cb);
  consumer(const consumer&) = delete;
  consumer& operator=(const consumer&) = delete;
  consumer(consumer&&) = delete;
  consumer& operator=(consumer&&) = delete;
  // close() if not closed; errors go to on_error. A handle librdkafka 2.0.2 would abort
  // destroying (assignor_state_watch.hpp) is kept, closed, until the process exits.
  ~consumer() override;

  // Waits up to `timeout` for the first record, then takes what is ready without waiting, up
  // to max_records (at least 1). Throws kafka_error only on a fatal error, and rethrows what a
  // callback threw once the rebalance it was part of has completed.
  std::vector<record> poll(std::chrono::milliseconds timeout, std::size_t max_records) override;

  // Commits the offsets with their metadata (rd_kafka_commit of one list). A partition whose
  // metadata the broker refuses as too large (offset.metadata.max.bytes below courier's
  // budget) is reported with metadata_dropped and committed again without it. Throws
  // kafka_error only when the request cannot be made at all.
  void commit(const std::vector<offset_commit>& offsets, commit_mode mode) override;

  void complete_revoke() override;

  // Resume only resumes partitions paused through this wrapper (librdkafka 2.0.2 can rewind a
  // partition that is resumed without being paused). Both check every partition's error.
  void pause(const std::vector<partition_id>& ps) override;
  void resume(const std::vector<partition_id>& ps) override;

  std::vector<partition_id> assignment() const override;

  // Leaves the group (on_revoked runs once more, and the revoke is completed at once whatever
  // it answers). The owner commits before. Idempotent.
  void close() override;

  rd_kafka_t* raw();
  // Whether the member's JoinGroup or SyncGroup is in flight (commit_hold.hpp).
  [[nodiscard]] bool joining() const { return context_->joining.load(); }

  // What librdkafka's callbacks reach through its opaque pointer: the consumer, and what the
  // log lines update on librdkafka's threads. Apart from the consumer, so that it outlives it
  // with a handle kept until the process exits.
  struct client_context {
    consumer* owner = nullptr;  // nullptr once the consumer is gone (log lines only, then)
    std::atomic<bool> joining{false};
    bool debug_asked = false;  // `debug` in the settings: its lines are logged
    assignor_state_watch assignor;
  };

 private:
  static void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                           rd_kafka_topic_partition_list_t* partitions, void* opaque);
  static void on_kafka_error(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  // librdkafka's log lines: the group's join state is read from its debug lines (commit_hold.hpp
  // says why); the rest go to forward_client_log, debug lines only if `debug` was asked for.
  static void on_client_log(const rd_kafka_t* rk, int level, const char* fac, const char* buf);
  static int on_stats(rd_kafka_t* rk, char* json, std::size_t json_len, void* opaque);
  static void on_async_commit(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                              rd_kafka_topic_partition_list_t* offsets, void* opaque);
  // Reports a commit's outcomes; those refused for their metadata's size are committed again
  // without it, in the same mode.
  void committed(rd_kafka_resp_err_t err, const rd_kafka_topic_partition_list_t* offsets,
                 commit_mode mode);
  // The partitions with the group's committed offsets and metadata (none if the broker does not
  // answer within committed_fetch_bound).
  std::vector<assigned_partition> read_committed(rd_kafka_topic_partition_list_t* partitions);
  // The partitions without what the group committed (closing: not asked).
  static std::vector<assigned_partition> without_committed(
      const rd_kafka_topic_partition_list_t* partitions);
  // The statistics' positions with each paused partition's watermarks asked of the broker (the
  // answers of the round the previous report started; watermark_prober).
  std::vector<partition_position> with_paused_watermarks(std::vector<partition_position> ps);
  // The rebalance callback: rebalance_protocol decides, rebalance_side carries it out.
  class rebalance_side;
  void handle_rebalance(rd_kafka_resp_err_t err, const rd_kafka_topic_partition_list_t* partitions);
  void assign(const rd_kafka_topic_partition_list_t* partitions);
  void unassign(const rd_kafka_topic_partition_list_t* partitions);
  void report(const std::string& message);
  void rethrow_pending();
  // Sends the commits held while the member joined, once it no longer is.
  void release_held_commits();
  // Waits (up to join_wait_bound) until the member's JoinGroup and SyncGroup are answered.
  void wait_for_generation();

  callbacks cb_;
  std::set<partition_id> paused_;
  rebalance_protocol rebalance_;  // holds a revoke on_revoked answered `later` for
  std::exception_ptr pending_;    // thrown inside a librdkafka callback, rethrown after it
  commit_hold held_commits_;
  std::unique_ptr<client_context> context_;  // outlives rk_ (declared before it)
  bool fatal_ = false;
  bool closed_ = false;
  handle_ptr rk_;  // destroyed after the prober, first of the others
  // Asks the broker for the paused partitions' watermarks off the consumer's thread; made at the
  // first statistics report. Declared after rk_: destroyed (its thread joined) before it.
  std::unique_ptr<watermark_prober> prober_;
};

}  // namespace courier::kafka
