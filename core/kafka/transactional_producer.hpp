#pragma once

#include "core/kafka/error.hpp"
#include "core/kafka/handles.hpp"
#include "core/model/record.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace courier::kafka {

// The transaction was aborted (librdkafka said it requires an abort): nothing produced in it
// is visible to read_committed consumers. The producer is usable again: begin() a new one.
class transaction_aborted : public kafka_error {
 public:
  using kafka_error::kafka_error;
};

// A transactional producer (transactional.id set, acks=all, idempotent; `extra` overrides).
// Every record produced between begin() and commit() becomes visible atomically, or not at
// all. A second producer with the same transactional.id fences this one (its next call throws
// a fatal kafka_error) and aborts its open transaction when it calls init_transactions().
// Errors follow librdkafka's transactions API: retriable ones are retried within the timeout,
// abortable ones abort the transaction and throw transaction_aborted, fatal ones throw
// kafka_error(ERR__FATAL) and the producer must be rebuilt. Not copyable or movable.
class transactional_producer {
 public:
  transactional_producer(const std::string& bootstrap, const std::string& transactional_id,
                         const std::map<std::string, std::string>& extra = {});
  transactional_producer(const transactional_producer&) = delete;
  transactional_producer& operator=(const transactional_producer&) = delete;
  transactional_producer(transactional_producer&&) = delete;
  transactional_producer& operator=(transactional_producer&&) = delete;
  ~transactional_producer();  // aborts an open transaction (bounded), errors ignored

  // Registers the transactional.id with the coordinator: fences older producers with the same
  // id and completes (aborts) their open transaction. Call once, before begin().
  void init_transactions(std::chrono::milliseconds timeout);

  void begin();

  // The broker's answer for one record, served before commit() returns.
  using delivery_report =
      std::function<void(rd_kafka_resp_err_t err, std::int32_t partition, std::int64_t offset)>;

  // Within begin() ... commit(). On a full local queue it serves events and retries for a
  // bounded time. An error that requires an abort aborts and throws transaction_aborted.
  void produce(const std::string& topic, std::int32_t partition,
               std::optional<std::string_view> key, std::string_view value,
               const header_list& headers = {}, delivery_report on_report = {});

  // Flushes and commits. Throws transaction_aborted after aborting when the commit cannot
  // succeed (e.g. a record failed), kafka_error otherwise.
  void commit(std::chrono::milliseconds timeout);

  // Aborts the open transaction; a no-op when none is open.
  void abort(std::chrono::milliseconds timeout);

  bool in_transaction() const noexcept { return in_transaction_; }
  rd_kafka_t* raw();

 private:
  static void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* msg, void* opaque);
  // Throws the right exception for `error` (which it takes over); aborts first if required.
  [[noreturn]] void fail(rd_kafka_error_t* error, const std::string& what,
                         std::chrono::milliseconds abort_timeout);

  bool in_transaction_ = false;
  handle_ptr rk_;
};

}  // namespace courier::kafka
