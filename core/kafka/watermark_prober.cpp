#include "core/kafka/watermark_prober.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace courier::kafka {

watermark_prober::watermark_prober(rd_kafka_t* rk, std::chrono::milliseconds bound)
    : rk_(rk), bound_(bound), worker_([this] { run(); }) {}

watermark_prober::~watermark_prober() {
  {
    const std::lock_guard<std::mutex> lock{mutex_};
    stopping_ = true;
  }
  wake_.notify_one();
  worker_.join();
}

std::map<partition_id, watermarks> watermark_prober::ask(
    const std::vector<partition_id>& partitions) {
  std::map<partition_id, watermarks> latest;
  {
    const std::lock_guard<std::mutex> lock{mutex_};
    // Only what is asked about now: a partition no longer asked about (resumed, revoked) is
    // forgotten.
    for (auto it = found_.begin(); it != found_.end();) {
      const bool asked =
          std::find(partitions.begin(), partitions.end(), it->first) != partitions.end();
      it = asked ? std::next(it) : found_.erase(it);
    }
    latest = found_;
    if (busy_ || partitions.empty()) {
      return latest;
    }
    round_ = partitions;
    busy_ = true;
  }
  wake_.notify_one();
  return latest;
}

bool watermark_prober::asking() const {
  const std::lock_guard<std::mutex> lock{mutex_};
  return busy_;
}

void watermark_prober::run() {
  std::unique_lock<std::mutex> lock{mutex_};
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !round_.empty(); });
    if (stopping_) {
      return;
    }
    const auto round = std::exchange(round_, {});
    lock.unlock();
    std::map<partition_id, watermarks> answered;
    const auto deadline = std::chrono::steady_clock::now() + bound_;
    for (const auto& p : round) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        break;  // the rest are asked again in the next round
      }
      watermarks w;
      if (rd_kafka_query_watermark_offsets(rk_, p.topic.c_str(), p.partition, &w.low, &w.high,
                                           static_cast<int>(left.count())) ==
          RD_KAFKA_RESP_ERR_NO_ERROR) {
        answered[p] = w;
      }
    }
    lock.lock();
    // What this round did not answer keeps the previous round's answer.
    for (auto& [p, w] : answered) {
      found_[p] = w;
    }
    busy_ = false;
  }
}

}  // namespace courier::kafka
