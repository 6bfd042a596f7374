#include "core/kafka/produce_args.hpp"

#include "core/kafka/record_conversion.hpp"

#include <utility>

namespace courier::kafka {

produce_args::produce_args(const std::string& topic, std::int32_t partition,
                           std::optional<std::string_view> key, std::string_view value,
                           const header_list& headers, std::optional<std::int64_t> timestamp_ms,
                           delivery_report on_report)
    : headers_(to_kafka_headers(headers)) {
  vus_.reserve(8);
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
  if (timestamp_ms) {
    add(RD_KAFKA_VTYPE_TIMESTAMP).u.i64 = *timestamp_ms;
  }
  if (headers_) {
    add(RD_KAFKA_VTYPE_HEADERS).u.headers = headers_.get();
  }
  if (on_report) {
    report_ = std::make_unique<delivery_report>(std::move(on_report));
    add(RD_KAFKA_VTYPE_OPAQUE).u.ptr = report_.get();
  }
}

void produce_args::accepted() noexcept {
  static_cast<void>(headers_.release());  // librdkafka owns the headers now
  static_cast<void>(report_.release());   // and the report, until the delivery callback
}

rd_kafka_vu_t& produce_args::add(rd_kafka_vtype_t type) {
  rd_kafka_vu_t& vu = vus_.emplace_back();
  vu.vtype = type;
  return vu;
}

}  // namespace courier::kafka
