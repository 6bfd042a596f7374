#include "core/kafka/transactional_producer.hpp"

#include "core/kafka/conf.hpp"
#include "core/kafka/produce_args.hpp"

#include <array>
#include <memory>
#include <utility>

namespace courier::kafka {
namespace {

constexpr std::chrono::milliseconds queue_full_budget{10'000};
constexpr std::chrono::milliseconds queue_full_poll{50};
constexpr std::chrono::milliseconds destructor_abort_timeout{5'000};

int to_ms(std::chrono::milliseconds d) { return static_cast<int>(d.count()); }

std::chrono::milliseconds remaining(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() > 0 ? left : std::chrono::milliseconds{1};
}

// rd_kafka_init_transactions, rd_kafka_commit_transaction or rd_kafka_abort_transaction.
using transaction_call = rd_kafka_error_t* (*)(rd_kafka_t* rk, int timeout_ms);

// Calls `call` with the time left until it succeeds, fails with an error that is not
// retriable, or `timeout` has passed. Returns that last error; nullptr on success.
error_ptr call_with_retries(rd_kafka_t* rk, transaction_call call,
                            std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    error_ptr error{call(rk, to_ms(remaining(deadline)))};
    if (!error || rd_kafka_error_is_retriable(error.get()) == 0 ||
        std::chrono::steady_clock::now() >= deadline) {
      return error;
    }
  }
}

[[noreturn]] void throw_fatal(rd_kafka_t* rk, const std::string& what) {
  std::array<char, 512> reason{};
  const rd_kafka_resp_err_t err = rd_kafka_fatal_error(rk, reason.data(), reason.size());
  throw kafka_error(RD_KAFKA_RESP_ERR__FATAL,
                    what + ": the transactional producer hit a fatal error and must be rebuilt",
                    std::string(rd_kafka_err2name(err)) + ": " + reason.data());
}

}  // namespace

transactional_producer::transactional_producer(const std::string& bootstrap,
                                               const std::string& transactional_id,
                                               const std::map<std::string, std::string>& extra) {
  conf_ptr conf = make_conf(with_overrides(
      {
          {"bootstrap.servers", bootstrap},
          {"transactional.id", transactional_id},
          {"enable.idempotence", "true"},
          {"acks", "all"},
          {"linger.ms", "5"},
      },
      extra));
  rd_kafka_conf_set_dr_msg_cb(conf.get(), &transactional_producer::on_delivery);
  std::array<char, 512> reason{};
  rk_.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), reason.data(), reason.size()));
  if (!rk_) {
    throw kafka_error(RD_KAFKA_RESP_ERR__INVALID_ARG,
                      "creating transactional producer '" + transactional_id + "'", reason.data());
  }
  static_cast<void>(conf.release());  // rd_kafka_new took ownership
}

transactional_producer::~transactional_producer() {
  if (in_transaction_ &&
      rd_kafka_fatal_error(rk_.get(), nullptr, 0) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    // Best effort: a transaction left open is aborted by the broker after
    // transaction.timeout.ms, or by the next init_transactions() with this id.
    error_ptr ignored{rd_kafka_abort_transaction(rk_.get(), to_ms(destructor_abort_timeout))};
  }
}

void transactional_producer::on_delivery(rd_kafka_t* /*rk*/, const rd_kafka_message_t* msg,
                                         void* /*opaque*/) {
  if (msg->_private != nullptr) {
    std::unique_ptr<delivery_report> report{static_cast<delivery_report*>(msg->_private)};
    (*report)(msg->err, msg->partition, msg->offset);
  }
}

void transactional_producer::fail(rd_kafka_error_t* raw_error, const std::string& what,
                                  std::chrono::milliseconds abort_timeout) {
  error_ptr error{raw_error};
  const rd_kafka_resp_err_t code = rd_kafka_error_code(error.get());
  const std::string reason = rd_kafka_error_string(error.get());
  if (rd_kafka_error_is_fatal(error.get()) != 0) {
    in_transaction_ = false;
    throw_fatal(rk_.get(), what);
  }
  if (rd_kafka_error_txn_requires_abort(error.get()) != 0) {
    error_ptr abort_error{rd_kafka_abort_transaction(rk_.get(), to_ms(abort_timeout))};
    if (abort_error) {
      if (rd_kafka_error_is_fatal(abort_error.get()) != 0) {
        in_transaction_ = false;
        throw_fatal(rk_.get(), what + ", then aborting");
      }
      throw kafka_error(rd_kafka_error_code(abort_error.get()),
                        what + " (" + reason + "), then aborting the transaction",
                        rd_kafka_error_string(abort_error.get()));
    }
    in_transaction_ = false;
    throw transaction_aborted(code, what + "; the transaction was aborted", reason);
  }
  throw kafka_error(code, what, reason);
}

void transactional_producer::init_transactions(std::chrono::milliseconds timeout) {
  if (error_ptr error = call_with_retries(rk_.get(), &rd_kafka_init_transactions, timeout)) {
    fail(error.release(), "initialising transactions", timeout);
  }
}

void transactional_producer::begin() {
  if (rd_kafka_error_t* error = rd_kafka_begin_transaction(rk_.get())) {
    fail(error, "beginning a transaction", std::chrono::milliseconds{10'000});
  }
  in_transaction_ = true;
}

void transactional_producer::produce(const std::string& topic, std::int32_t partition,
                                     std::optional<std::string_view> key, std::string_view value,
                                     const header_list& headers, delivery_report on_report) {
  if (rd_kafka_fatal_error(rk_.get(), nullptr, 0) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw_fatal(rk_.get(), "producing to " + topic);
  }
  produce_args args{
      topic, partition, key, value, headers, /*timestamp_ms=*/std::nullopt, std::move(on_report)};
  const auto deadline = std::chrono::steady_clock::now() + queue_full_budget;
  const std::string what = "producing to " + topic + "[" + std::to_string(partition) + "]";
  while (true) {
    rd_kafka_error_t* error = rd_kafka_produceva(rk_.get(), args.data(), args.size());
    if (error == nullptr) {
      args.accepted();
      rd_kafka_poll(rk_.get(), /*timeout_ms=*/0);
      return;
    }
    if (rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR__QUEUE_FULL &&
        std::chrono::steady_clock::now() < deadline) {
      rd_kafka_error_destroy(error);
      rd_kafka_poll(rk_.get(), to_ms(queue_full_poll));
      continue;
    }
    fail(error, what, std::chrono::milliseconds{10'000});
  }
}

void transactional_producer::commit(std::chrono::milliseconds timeout) {
  if (error_ptr error = call_with_retries(rk_.get(), &rd_kafka_commit_transaction, timeout)) {
    fail(error.release(), "committing a transaction", timeout);
  }
  in_transaction_ = false;
}

void transactional_producer::abort(std::chrono::milliseconds timeout) {
  if (!in_transaction_) {
    return;
  }
  error_ptr error = call_with_retries(rk_.get(), &rd_kafka_abort_transaction, timeout);
  if (!error) {
    in_transaction_ = false;
    return;
  }
  if (rd_kafka_error_is_fatal(error.get()) != 0) {
    in_transaction_ = false;
    throw_fatal(rk_.get(), "aborting a transaction");
  }
  throw kafka_error(rd_kafka_error_code(error.get()), "aborting a transaction",
                    rd_kafka_error_string(error.get()));
}

rd_kafka_t* transactional_producer::raw() { return rk_.get(); }

}  // namespace courier::kafka
