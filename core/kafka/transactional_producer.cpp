#include "core/kafka/transactional_producer.hpp"

#include "core/kafka/conf.hpp"
#include "core/kafka/record_conversion.hpp"

#include <array>
#include <memory>
#include <utility>
#include <vector>

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
                                               std::map<std::string, std::string> extra) {
  std::map<std::string, std::string> props{
      {"bootstrap.servers", bootstrap},
      {"transactional.id", transactional_id},
      {"enable.idempotence", "true"},
      {"acks", "all"},
      {"linger.ms", "5"},
  };
  for (auto& [name, value] : extra) {
    props[name] = std::move(value);
  }
  conf_ptr conf = make_conf(props);
  rd_kafka_conf_set_dr_msg_cb(conf.get(), &transactional_producer::on_delivery);
  std::array<char, 512> reason{};
  rk_.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), reason.data(), reason.size()));
  if (!rk_) {
    throw kafka_error(RD_KAFKA_RESP_ERR__INVALID_ARG,
                      "creating transactional producer '" + transactional_id + "'",
                      reason.data());
  }
  static_cast<void>(conf.release());  // rd_kafka_new took ownership
}

transactional_producer::~transactional_producer() {
  if (in_transaction_ && rd_kafka_fatal_error(rk_.get(), nullptr, 0) == RD_KAFKA_RESP_ERR_NO_ERROR) {
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
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    rd_kafka_error_t* error = rd_kafka_init_transactions(rk_.get(), to_ms(remaining(deadline)));
    if (error == nullptr) {
      return;
    }
    if (rd_kafka_error_is_retriable(error) != 0 && std::chrono::steady_clock::now() < deadline) {
      rd_kafka_error_destroy(error);
      continue;
    }
    fail(error, "initialising transactions", timeout);
  }
}

void transactional_producer::begin() {
  if (rd_kafka_error_t* error = rd_kafka_begin_transaction(rk_.get())) {
    fail(error, "beginning a transaction", std::chrono::milliseconds{10'000});
  }
  in_transaction_ = true;
}

void transactional_producer::produce(const std::string& topic, std::int32_t partition,
                                     std::optional<std::string_view> key,
                                     std::string_view value, const header_list& headers,
                                     delivery_report on_report) {
  if (rd_kafka_fatal_error(rk_.get(), nullptr, 0) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw_fatal(rk_.get(), "producing to " + topic);
  }
  headers_ptr hdrs = to_kafka_headers(headers);
  std::vector<rd_kafka_vu_t> vus;
  vus.reserve(7);
  auto add = [&vus](rd_kafka_vtype_t type) -> rd_kafka_vu_t& {
    rd_kafka_vu_t& vu = vus.emplace_back();
    vu.vtype = type;
    return vu;
  };
  add(RD_KAFKA_VTYPE_TOPIC).u.cstr = topic.c_str();
  add(RD_KAFKA_VTYPE_PARTITION).u.i32 = partition;
  add(RD_KAFKA_VTYPE_MSGFLAGS).u.i = RD_KAFKA_MSG_F_COPY;
  {
    rd_kafka_vu_t& vu = add(RD_KAFKA_VTYPE_VALUE);
    vu.u.mem.ptr = const_cast<char*>(value.data());
    vu.u.mem.size = value.size();
  }
  if (key) {
    rd_kafka_vu_t& vu = add(RD_KAFKA_VTYPE_KEY);
    vu.u.mem.ptr = const_cast<char*>(key->data());
    vu.u.mem.size = key->size();
  }
  if (hdrs) {
    add(RD_KAFKA_VTYPE_HEADERS).u.headers = hdrs.get();
  }
  std::unique_ptr<delivery_report> report;
  if (on_report) {
    report = std::make_unique<delivery_report>(std::move(on_report));
    add(RD_KAFKA_VTYPE_OPAQUE).u.ptr = report.get();
  }
  const auto deadline = std::chrono::steady_clock::now() + queue_full_budget;
  const std::string what = "producing to " + topic + "[" + std::to_string(partition) + "]";
  while (true) {
    rd_kafka_error_t* error = rd_kafka_produceva(rk_.get(), vus.data(), vus.size());
    if (error == nullptr) {
      static_cast<void>(hdrs.release());    // librdkafka owns the headers now
      static_cast<void>(report.release());  // and the report, until on_delivery
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
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    rd_kafka_error_t* error = rd_kafka_commit_transaction(rk_.get(), to_ms(remaining(deadline)));
    if (error == nullptr) {
      in_transaction_ = false;
      return;
    }
    if (rd_kafka_error_is_retriable(error) != 0 && std::chrono::steady_clock::now() < deadline) {
      rd_kafka_error_destroy(error);
      continue;
    }
    fail(error, "committing a transaction", timeout);
  }
}

void transactional_producer::abort(std::chrono::milliseconds timeout) {
  if (!in_transaction_) {
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    rd_kafka_error_t* error = rd_kafka_abort_transaction(rk_.get(), to_ms(remaining(deadline)));
    if (error == nullptr) {
      in_transaction_ = false;
      return;
    }
    if (rd_kafka_error_is_retriable(error) != 0 && std::chrono::steady_clock::now() < deadline) {
      rd_kafka_error_destroy(error);
      continue;
    }
    error_ptr owned{error};
    if (rd_kafka_error_is_fatal(error) != 0) {
      in_transaction_ = false;
      throw_fatal(rk_.get(), "aborting a transaction");
    }
    throw kafka_error(rd_kafka_error_code(error), "aborting a transaction",
                      rd_kafka_error_string(error));
  }
}

rd_kafka_t* transactional_producer::raw() { return rk_.get(); }

}  // namespace courier::kafka
