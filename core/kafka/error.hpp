#pragma once

#include <librdkafka/rdkafka.h>

#include <stdexcept>
#include <string>

namespace courier::kafka {

// A librdkafka failure: the message says what courier was doing, the code is librdkafka's.
class kafka_error : public std::runtime_error {
 public:
  kafka_error(rd_kafka_resp_err_t code, const std::string& what)
      : std::runtime_error(what + ": " + rd_kafka_err2str(code) + " (" + rd_kafka_err2name(code) +
                           ")"),
        code_(code) {}

  // For failures whose reason librdkafka already phrased (conf errors, rd_kafka_error_t).
  kafka_error(rd_kafka_resp_err_t code, const std::string& what, const std::string& reason)
      : std::runtime_error(what + ": " + reason + " (" + rd_kafka_err2name(code) + ")"),
        code_(code) {}

  rd_kafka_resp_err_t code() const noexcept { return code_; }

 private:
  rd_kafka_resp_err_t code_;
};

}  // namespace courier::kafka
