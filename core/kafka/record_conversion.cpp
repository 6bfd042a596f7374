#include "core/kafka/record_conversion.hpp"

#include "core/kafka/error.hpp"

namespace courier::kafka {

header_list to_header_list(const rd_kafka_message_t& msg) {
  header_list result;
  rd_kafka_headers_t* hdrs = nullptr;  // owned by the message
  const rd_kafka_resp_err_t err = rd_kafka_message_headers(&msg, &hdrs);
  if (err == RD_KAFKA_RESP_ERR__NOENT) {
    return result;
  }
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "reading headers of a consumed message");
  }
  result.reserve(rd_kafka_header_cnt(hdrs));
  const char* name = nullptr;
  const void* value = nullptr;
  std::size_t size = 0;
  for (std::size_t idx = 0;
       rd_kafka_header_get_all(hdrs, idx, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
       ++idx) {
    if (value == nullptr) {
      result.emplace_back(name, std::string{});
    } else {
      result.emplace_back(name, std::string(static_cast<const char*>(value), size));
    }
  }
  return result;
}

record to_record(const rd_kafka_message_t& msg) {
  record rec;
  rec.topic = rd_kafka_topic_name(msg.rkt);
  rec.partition = msg.partition;
  rec.offset = msg.offset;
  if (msg.key != nullptr) {
    rec.key.emplace(static_cast<const char*>(msg.key), msg.key_len);
  }
  if (msg.payload != nullptr) {
    rec.value = payload{static_cast<const char*>(msg.payload), msg.len};
  }
  rec.headers = to_header_list(msg);
  rd_kafka_timestamp_type_t ts_type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
  const std::int64_t ts = rd_kafka_message_timestamp(&msg, &ts_type);
  rec.timestamp_ms = ts < 0 ? 0 : ts;
  return rec;
}

headers_ptr to_kafka_headers(const header_list& headers) {
  if (headers.empty()) {
    return nullptr;
  }
  headers_ptr hdrs{rd_kafka_headers_new(headers.size())};
  for (const auto& [name, value] : headers) {
    const rd_kafka_resp_err_t err =
        rd_kafka_header_add(hdrs.get(), name.data(), static_cast<ssize_t>(name.size()),
                            value.data(), static_cast<ssize_t>(value.size()));
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      throw kafka_error(err, "adding header '" + name + "'");
    }
  }
  return hdrs;
}

}  // namespace courier::kafka
