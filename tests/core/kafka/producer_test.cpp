#include "core/kafka/producer.hpp"

#include "core/kafka/error.hpp"
#include "core/kafka_mock/mock_cluster.hpp"

#include <gtest/gtest.h>

namespace courier::kafka {
namespace {

using namespace std::chrono_literals;

constexpr std::int16_t produce_api_key = 0;

TEST(KafkaProducer, AcknowledgesEveryRecord) {
  mock_cluster cluster;
  cluster.create_topic("orders", 4);
  producer prod{cluster.bootstrap_servers()};
  for (int i = 0; i < 100; ++i) {
    prod.produce("orders", RD_KAFKA_PARTITION_UA, "key-" + std::to_string(i), "value",
                 {{"trace", std::to_string(i)}});
  }
  prod.flush(10s);
  EXPECT_EQ(prod.acked(), 100U);
  EXPECT_EQ(prod.failed(), 0U);
}

TEST(KafkaProducer, IdempotentRetriesDeliverThroughTransientProduceErrors) {
  mock_cluster cluster;
  cluster.create_topic("orders", 1);
  producer prod{cluster.bootstrap_servers()};
  prod.produce("orders", 0, std::nullopt, "warm-up");  // producer id acquired first
  prod.flush(10s);

  cluster.push_request_errors(produce_api_key, {RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
                                                RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                                                RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT});
  for (int i = 0; i < 20; ++i) {
    prod.produce("orders", 0, "k", "v" + std::to_string(i));
  }
  prod.flush(15s);
  EXPECT_EQ(prod.acked(), 21U);
  EXPECT_EQ(prod.failed(), 0U);
}

TEST(KafkaProducer, ReportsFailureWhenTheBrokerStaysDown) {
  mock_cluster cluster;
  cluster.create_topic("orders", 1);
  producer prod{cluster.bootstrap_servers(), {{"message.timeout.ms", "1500"}}};
  cluster.set_broker_down(1);
  for (int i = 0; i < 10; ++i) {
    prod.produce("orders", 0, "k", "v");
  }
  prod.flush(10s);  // every message leaves the queue: as a failure
  EXPECT_EQ(prod.acked(), 0U);
  EXPECT_EQ(prod.failed(), 10U);
}

TEST(KafkaProducer, FlushThrowsWhileMessagesRemain) {
  mock_cluster cluster;
  cluster.create_topic("orders", 1);
  producer prod{cluster.bootstrap_servers()};
  cluster.set_broker_down(1);
  prod.produce("orders", 0, "k", "v");
  try {
    prod.flush(300ms);
    FAIL() << "flush returned with a message outstanding";
  } catch (const kafka_error& e) {
    EXPECT_NE(std::string(e.what()).find("remain"), std::string::npos) << e.what();
  }
}

TEST(KafkaProducer, LearnsTheTopicsTheBrokerDescribesAndNamesTheRest) {
  mock_cluster cluster;
  cluster.create_topic("orders.retry-5s", 2);
  cluster.create_topic("orders.dlq", 2);
  producer prod{cluster.bootstrap_servers()};
  EXPECT_TRUE(prod.learn_topics({"orders.retry-5s", "orders.dlq"}, 5s).empty());
  prod.produce("orders.dlq", 1, std::nullopt, "first");
  prod.flush(10s);
  EXPECT_EQ(prod.acked(), 1U);

  producer nowhere{"127.0.0.1:1", {{"message.timeout.ms", "1000"}}};
  EXPECT_EQ(nowhere.learn_topics({"orders.dlq"}, 200ms), std::vector<std::string>{"orders.dlq"})
      << "no broker answered";
}

TEST(KafkaProducer, RejectsAnUnknownPropertyByName) {
  try {
    producer prod{"localhost:1", {{"no.such.property", "1"}}};
    FAIL() << "producer accepted an unknown property";
  } catch (const kafka_error& e) {
    EXPECT_NE(std::string(e.what()).find("no.such.property"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace courier::kafka
