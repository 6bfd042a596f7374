#pragma once

#include "core/kafka/handles.hpp"
#include "core/model/record.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace courier::kafka {

// The argument list of one rd_kafka_produceva() call (RD_KAFKA_MSG_F_COPY: key and value are
// copied by librdkafka). It owns the message's headers and delivery report until librdkafka
// takes the message: call accepted() after a successful produce, else they die with it.
// Points into `topic`, `key` and `value`, which must outlive it.
class produce_args {
 public:
  // What the delivery callback receives as the message's opaque (_private): it takes the
  // report over and calls it once with the broker's answer.
  using delivery_report =
      std::function<void(rd_kafka_resp_err_t err, std::int32_t partition, std::int64_t offset)>;

  // No timestamp: librdkafka stamps the message with the time it was produced.
  produce_args(const std::string& topic, std::int32_t partition,
               std::optional<std::string_view> key, std::string_view value,
               const header_list& headers, std::optional<std::int64_t> timestamp_ms,
               delivery_report on_report);
  produce_args(const produce_args&) = delete;
  produce_args& operator=(const produce_args&) = delete;
  produce_args(produce_args&&) = delete;
  produce_args& operator=(produce_args&&) = delete;
  ~produce_args() = default;

  const rd_kafka_vu_t* data() const noexcept { return vus_.data(); }
  std::size_t size() const noexcept { return vus_.size(); }

  // rd_kafka_produceva() succeeded: librdkafka owns the headers now, and the report until the
  // delivery callback takes it back.
  void accepted() noexcept;

 private:
  rd_kafka_vu_t& add(rd_kafka_vtype_t type);

  headers_ptr headers_;
  std::unique_ptr<delivery_report> report_;
  std::vector<rd_kafka_vu_t> vus_;
};

}  // namespace courier::kafka
