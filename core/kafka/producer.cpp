#include "core/kafka/producer.hpp"

#include <chrono>

#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"
#include "core/kafka/produce_args.hpp"

#include <array>
#include <memory>
#include <utility>

namespace courier::kafka {
namespace {

// How long produce() keeps serving delivery reports while the local queue is full.
constexpr std::chrono::milliseconds queue_full_budget{10'000};
constexpr std::chrono::milliseconds queue_full_poll{50};

[[noreturn]] void throw_fatal(rd_kafka_t* rk) {
  std::array<char, 512> reason{};
  const rd_kafka_resp_err_t err = rd_kafka_fatal_error(rk, reason.data(), reason.size());
  throw kafka_error(RD_KAFKA_RESP_ERR__FATAL, "the producer hit a fatal error and must be rebuilt",
                    std::string(rd_kafka_err2name(err)) + ": " + reason.data());
}

}  // namespace

std::map<std::string, std::string> producer_properties(
    const std::string& bootstrap, const std::map<std::string, std::string>& extra) {
  return with_overrides(
      {
          {"bootstrap.servers", bootstrap},
          {"enable.idempotence", "true"},
          {"acks", "all"},
          {"linger.ms", "5"},
          // Partitions added to a tier or DLQ topic are known within seconds, not 5 minutes.
          {"topic.metadata.refresh.interval.ms", "10000"},
      },
      extra);
}

producer::producer(const std::string& bootstrap, const std::map<std::string, std::string>& extra) {
  conf_ptr conf = make_conf(producer_properties(bootstrap, extra));
  rd_kafka_conf_set_dr_msg_cb(conf.get(), &producer::on_delivery);
  rd_kafka_conf_set_opaque(conf.get(), this);
  std::array<char, 512> reason{};
  rk_.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), reason.data(), reason.size()));
  if (!rk_) {
    throw kafka_error(RD_KAFKA_RESP_ERR__INVALID_ARG, "creating a producer for " + bootstrap,
                      reason.data());
  }
  static_cast<void>(conf.release());  // rd_kafka_new took ownership
}

producer::~producer() {
  rd_kafka_purge(rk_.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT |
                                RD_KAFKA_PURGE_F_NON_BLOCKING);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{1};
  while (rd_kafka_outq_len(rk_.get()) > 0 && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_poll(rk_.get(), 10);
  }
}

void producer::on_delivery(rd_kafka_t* /*rk*/, const rd_kafka_message_t* msg, void* opaque) {
  auto* self = static_cast<producer*>(opaque);
  if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    self->acked_.fetch_add(1, std::memory_order_relaxed);
  } else {
    self->failed_.fetch_add(1, std::memory_order_relaxed);
  }
  if (msg->_private != nullptr) {
    std::unique_ptr<delivery_report> report{static_cast<delivery_report*>(msg->_private)};
    (*report)(msg->err, msg->partition, msg->offset);
  }
}

void producer::produce(const std::string& topic, std::int32_t partition,
                       std::optional<std::string_view> key, std::string_view value,
                       const header_list& headers, std::int64_t timestamp_ms) {
  produce(topic, partition, key, value, headers, timestamp_ms, delivery_report{});
}

std::vector<std::string> producer::learn_topics(const std::vector<std::string>& topics,
                                                std::chrono::milliseconds timeout) {
  std::vector<std::string> unknown;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const auto& topic : topics) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    const topic_ptr handle{rd_kafka_topic_new(rk_.get(), topic.c_str(), nullptr)};
    const rd_kafka_metadata_t* described = nullptr;
    const auto err = handle && left.count() > 0
                         ? rd_kafka_metadata(rk_.get(), /*all_topics=*/0, handle.get(), &described,
                                             static_cast<int>(left.count()))
                         : RD_KAFKA_RESP_ERR__TIMED_OUT;
    const metadata_ptr owned{described};
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR || described == nullptr || described->topic_cnt != 1 ||
        described->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      unknown.push_back(topic);
    }
  }
  return unknown;
}

int producer::outstanding() const { return rd_kafka_outq_len(rk_.get()); }

void producer::produce(const std::string& topic, std::int32_t partition,
                       std::optional<std::string_view> key, std::string_view value,
                       const header_list& headers, std::int64_t timestamp_ms,
                       delivery_report on_report) {
  if (rd_kafka_fatal_error(rk_.get(), nullptr, 0) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw_fatal(rk_.get());
  }
  produce_args args{topic, partition, key, value, headers, timestamp_ms, std::move(on_report)};

  const auto deadline = std::chrono::steady_clock::now() + queue_full_budget;
  while (true) {
    error_ptr error{rd_kafka_produceva(rk_.get(), args.data(), args.size())};
    if (!error) {
      args.accepted();
      rd_kafka_poll(rk_.get(), /*timeout_ms=*/0);
      return;
    }
    const rd_kafka_resp_err_t code = rd_kafka_error_code(error.get());
    if (code == RD_KAFKA_RESP_ERR__FATAL || rd_kafka_error_is_fatal(error.get()) != 0) {
      throw_fatal(rk_.get());
    }
    if (code != RD_KAFKA_RESP_ERR__QUEUE_FULL || std::chrono::steady_clock::now() >= deadline) {
      throw kafka_error(code, "producing to " + topic + "[" + std::to_string(partition) + "]",
                        rd_kafka_error_string(error.get()));
    }
    rd_kafka_poll(rk_.get(), static_cast<int>(queue_full_poll.count()));
  }
}

int producer::poll(std::chrono::milliseconds timeout) {
  return rd_kafka_poll(rk_.get(), static_cast<int>(timeout.count()));
}

void producer::flush(std::chrono::milliseconds timeout) {
  const rd_kafka_resp_err_t err = rd_kafka_flush(rk_.get(), static_cast<int>(timeout.count()));
  const int remaining = rd_kafka_outq_len(rk_.get());
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR || remaining > 0) {
    throw kafka_error(
        err == RD_KAFKA_RESP_ERR_NO_ERROR ? RD_KAFKA_RESP_ERR__TIMED_OUT : err,
        "flushing the producer: " + std::to_string(remaining) + " messages or requests remain");
  }
}

std::uint64_t producer::acked() const { return acked_.load(std::memory_order_relaxed); }

std::uint64_t producer::failed() const { return failed_.load(std::memory_order_relaxed); }

rd_kafka_t* producer::raw() { return rk_.get(); }

}  // namespace courier::kafka
