#include "core/kafka/range_reader.hpp"

#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"
#include "core/kafka/record_conversion.hpp"

#include <algorithm>
#include <array>
#include <map>

namespace courier::kafka {
namespace {

constexpr std::chrono::milliseconds poll_interval{100};

int to_ms(std::chrono::milliseconds d) { return static_cast<int>(d.count()); }

}  // namespace

range_reader::range_reader(const cluster& at, std::chrono::milliseconds stall_timeout)
    : timeout_(stall_timeout) {
  // A group id is needed for a high-level consumer handle; this one never joins the group
  // (assign, not subscribe) and never commits.
  conf_ptr conf = make_conf(at.handle_properties({
      {"group.id", "courier-range-reader"},
      {"enable.auto.commit", "false"},
      {"enable.auto.offset.store", "false"},
      {"enable.partition.eof", "true"},
      {"isolation.level", "read_committed"},
      {"auto.offset.reset", "earliest"},
      // Failures reach the operator as one clear message, not as librdkafka's log lines.
      {"log_level", "0"},
  }));
  std::array<char, 512> reason{};
  rk_.reset(rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), reason.data(), reason.size()));
  if (!rk_) {
    throw kafka_error(RD_KAFKA_RESP_ERR__INVALID_ARG, "creating a reader for " + at.bootstrap,
                      reason.data());
  }
  static_cast<void>(conf.release());  // rd_kafka_new took ownership
  const rd_kafka_resp_err_t err = rd_kafka_poll_set_consumer(rk_.get());
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "redirecting the reader's main queue");
  }
}

range_reader::~range_reader() {
  // Nothing to commit and no group to leave: an unassign is all a close would do.
  static_cast<void>(rd_kafka_assign(rk_.get(), nullptr));
}

int range_reader::partition_count(const std::string& topic) {
  // All topics, not just this one: a request naming the topic may auto-create it.
  const rd_kafka_metadata_t* raw_metadata = nullptr;
  const rd_kafka_resp_err_t err =
      rd_kafka_metadata(rk_.get(), /*all_topics=*/1,
                        /*only_rkt=*/nullptr, &raw_metadata, to_ms(timeout_));
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "reading metadata of topic '" + topic + "'");
  }
  metadata_ptr metadata{raw_metadata};
  for (int i = 0; i < metadata->topic_cnt; ++i) {
    const rd_kafka_metadata_topic_t& t = metadata->topics[i];
    if (topic == t.topic && (t.err == RD_KAFKA_RESP_ERR_NO_ERROR || t.partition_cnt > 0)) {
      return t.partition_cnt;
    }
  }
  throw kafka_error(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
                    "reading metadata of topic '" + topic + "'", "the cluster has no such topic");
}

std::vector<partition_range> range_reader::ranges(const std::string& topic, int partitions) {
  std::vector<partition_range> result;
  result.reserve(static_cast<std::size_t>(std::max(partitions, 0)));
  for (std::int32_t p = 0; p < partitions; ++p) {
    result.push_back(range_of(topic, p));
  }
  return result;
}

partition_range range_reader::range_of(const std::string& topic, std::int32_t partition) {
  partition_range r;
  r.partition = partition;
  const rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets(
      rk_.get(), topic.c_str(), partition, &r.low, &r.high, to_ms(timeout_));
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err,
                      "reading the watermarks of " + topic + "[" + std::to_string(partition) + "]");
  }
  return r;
}

std::int64_t range_reader::offset_at_time(const std::string& topic, std::int32_t partition,
                                          std::int64_t epoch_ms) {
  topic_partition_list_ptr list{rd_kafka_topic_partition_list_new(1)};
  rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition)->offset = epoch_ms;
  const rd_kafka_resp_err_t err =
      rd_kafka_offsets_for_times(rk_.get(), list.get(), to_ms(timeout_));
  const std::string what = "finding the offset of " + topic + "[" + std::to_string(partition) +
                           "] at time " + std::to_string(epoch_ms);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, what);
  }
  const rd_kafka_topic_partition_t& found = list->elems[0];
  if (found.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(found.err, what);
  }
  return found.offset >= 0 ? found.offset : range_of(topic, partition).high;
}

void range_reader::read(const std::string& topic, const std::vector<partition_range>& ranges,
                        const std::function<bool(record&&)>& on_record) {
  std::map<std::int32_t, std::int64_t> open;  // partition -> high watermark
  topic_partition_list_ptr list{rd_kafka_topic_partition_list_new(static_cast<int>(ranges.size()))};
  for (const auto& r : ranges) {
    if (r.high > r.low) {
      open.emplace(r.partition, r.high);
      rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), r.partition)->offset = r.low;
    }
  }
  if (open.empty()) {
    return;
  }
  rd_kafka_resp_err_t err = rd_kafka_assign(rk_.get(), list.get());
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "assigning the partitions of " + topic);
  }
  auto stall_deadline = std::chrono::steady_clock::now() + timeout_;
  while (!open.empty()) {
    message_ptr msg{rd_kafka_consumer_poll(rk_.get(), to_ms(poll_interval))};
    if (!msg) {
      if (std::chrono::steady_clock::now() >= stall_deadline) {
        throw kafka_error(RD_KAFKA_RESP_ERR__TIMED_OUT,
                          "reading " + topic + ": no progress within " +
                              std::to_string(timeout_.count()) + " ms");
      }
      continue;
    }
    const auto it = open.find(msg->partition);
    if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      if (it != open.end() && msg->offset >= it->second) {
        open.erase(it);
      }
      continue;
    }
    if (msg->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      if (msg->err == RD_KAFKA_RESP_ERR__FATAL ||
          msg->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
          msg->err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED) {
        throw kafka_error(msg->err, "reading " + topic, rd_kafka_message_errstr(msg.get()));
      }
      continue;  // transient: librdkafka retries; the stall deadline bounds it
    }
    if (it == open.end() || msg->offset >= it->second) {
      continue;  // appended after the read started, or the partition is already done
    }
    const bool last = msg->offset + 1 >= it->second;
    const bool more = on_record(to_record(*msg));
    if (last) {
      open.erase(it);
    }
    if (!more) {
      break;
    }
    stall_deadline = std::chrono::steady_clock::now() + timeout_;
  }
  err = rd_kafka_assign(rk_.get(), nullptr);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "unassigning the partitions of " + topic);
  }
}

std::optional<record> range_reader::read_one(const std::string& topic, std::int32_t partition,
                                             std::int64_t offset) {
  const partition_range whole = range_of(topic, partition);
  if (offset < whole.low || offset >= whole.high) {
    return std::nullopt;
  }
  std::optional<record> found;
  read(topic, {partition_range{partition, offset, offset + 1}}, [&found](record&& r) {
    found = std::move(r);
    return false;
  });
  if (found && found->offset != offset) {
    return std::nullopt;
  }
  return found;
}

}  // namespace courier::kafka
