#include "core/kafka_mock/mock_cluster.hpp"

#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"

#include <array>

namespace courier::kafka {

mock_cluster::mock_cluster(int brokers) {
  conf_ptr conf = make_conf({{"client.id", "courier-mock-cluster-host"}});
  std::array<char, 512> reason{};
  host_.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), reason.data(), reason.size()));
  if (!host_) {
    throw kafka_error(RD_KAFKA_RESP_ERR__INVALID_ARG, "creating the mock cluster's host handle",
                      reason.data());
  }
  static_cast<void>(conf.release());  // rd_kafka_new took ownership
  cluster_.reset(rd_kafka_mock_cluster_new(host_.get(), brokers));
  if (!cluster_) {
    throw kafka_error(RD_KAFKA_RESP_ERR__FAIL,
                      "creating a mock cluster with " + std::to_string(brokers) + " brokers");
  }
}

std::string mock_cluster::bootstrap_servers() const {
  return rd_kafka_mock_cluster_bootstraps(cluster_.get());
}

void mock_cluster::create_topic(const std::string& name, int partitions) {
  const rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(cluster_.get(), name.c_str(),
                                                             partitions, /*replication_factor=*/1);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "creating mock topic '" + name + "'");
  }
}

rd_kafka_mock_cluster_t* mock_cluster::raw() { return cluster_.get(); }

void mock_cluster::push_request_errors(std::int16_t api_key,
                                       std::vector<rd_kafka_resp_err_t> errors) {
  rd_kafka_mock_push_request_errors_array(cluster_.get(), api_key, errors.size(), errors.data());
}

void mock_cluster::set_broker_down(int broker_id) {
  const rd_kafka_resp_err_t err = rd_kafka_mock_broker_set_down(cluster_.get(), broker_id);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "taking mock broker " + std::to_string(broker_id) + " down");
  }
}

void mock_cluster::set_broker_up(int broker_id) {
  const rd_kafka_resp_err_t err = rd_kafka_mock_broker_set_up(cluster_.get(), broker_id);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "bringing mock broker " + std::to_string(broker_id) + " up");
  }
}

}  // namespace courier::kafka
