#pragma once

#include "core/kafka/handles.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace courier::kafka {

// librdkafka's in-process mock cluster, for tests. It is hosted by its own producer handle, as
// rdkafka_mock.h requires; broker ids run from 1 to `brokers`.
class mock_cluster {
 public:
  explicit mock_cluster(int brokers = 1);

  std::string bootstrap_servers() const;
  void create_topic(const std::string& name, int partitions);
  rd_kafka_mock_cluster_t* raw();

  // The next errors.size() requests with this api_key (0 = Produce) fail with these errors.
  void push_request_errors(std::int16_t api_key, std::vector<rd_kafka_resp_err_t> errors);
  void set_broker_down(int broker_id);
  void set_broker_up(int broker_id);

 private:
  handle_ptr host_;  // declared first: the cluster must go before its host handle
  mock_cluster_ptr cluster_;
};

}  // namespace courier::kafka
