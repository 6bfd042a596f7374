#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "core/model/partition_id.hpp"

namespace courier::kafka {

// A partition's watermarks as the broker answered them.
struct watermarks {
  std::int64_t low = -1;
  std::int64_t high = -1;
};

// Asks the broker for partitions' watermarks on a thread of its own. librdkafka 2.0.2 has no
// asynchronous call for them: rd_kafka_query_watermark_offsets takes a round trip per
// partition, and asked on the consumer's thread (inside the statistics callback, every 5 s)
// for its paused partitions it held the fetch loop for up to a second each time: with one
// endpoint of several parked in the last retry tier, its 16 paused tier partitions stopped
// every delivery of the route's other endpoints for 1.2 s in each 5 s.
//
// ask() returns at once with what the latest finished round found and, unless a round is
// running, starts one for the partitions given. The handle must outlive the prober (declare the
// prober after the handle that owns it, so it is destroyed, and its thread joined, first).
class watermark_prober {
 public:
  // `bound`: how long one round may take in all; partitions not answered by then are asked
  // again in the next round.
  watermark_prober(rd_kafka_t* rk, std::chrono::milliseconds bound);
  watermark_prober(const watermark_prober&) = delete;
  watermark_prober& operator=(const watermark_prober&) = delete;
  watermark_prober(watermark_prober&&) = delete;
  watermark_prober& operator=(watermark_prober&&) = delete;
  ~watermark_prober();  // stops: the round in flight ends within its bound

  std::map<partition_id, watermarks> ask(const std::vector<partition_id>& partitions);
  // A round was started and has not finished.
  [[nodiscard]] bool asking() const;

 private:
  void run();

  rd_kafka_t* rk_;
  std::chrono::milliseconds bound_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<partition_id> round_;  // the round to run next (empty: none)
  bool busy_ = false;                // a round was handed over and has not finished
  bool stopping_ = false;
  std::map<partition_id, watermarks> found_;
  std::thread worker_;  // declared last: started once the members above exist
};

}  // namespace courier::kafka
