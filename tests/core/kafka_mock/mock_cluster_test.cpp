#include "core/kafka_mock/mock_cluster.hpp"

#include "core/kafka/admin.hpp"
#include "core/kafka/error.hpp"
#include "core/kafka/producer.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace courier::kafka {
namespace {

using namespace std::chrono_literals;

TEST(KafkaMockCluster, ServesBootstrapServersForEveryBroker) {
  mock_cluster cluster{3};
  const std::string servers = cluster.bootstrap_servers();
  EXPECT_FALSE(servers.empty());
  EXPECT_EQ(std::count(servers.begin(), servers.end(), ','), 2) << servers;
  EXPECT_NE(cluster.raw(), nullptr);
}

TEST(KafkaMockCluster, CreatesTopicsWithTheRequestedPartitionCount) {
  mock_cluster cluster;
  cluster.create_topic("orders", 4);
  cluster.create_topic("payments", 1);
  EXPECT_EQ(partition_count(cluster.bootstrap_servers(), "orders", 5s), 4);
  EXPECT_EQ(partition_count(cluster.bootstrap_servers(), "payments", 5s), 1);
}

TEST(KafkaMockCluster, BrokerDownStallsDeliveryAndBrokerUpLetsItFinish) {
  mock_cluster cluster;
  cluster.create_topic("orders", 1);
  producer prod{cluster.bootstrap_servers()};
  prod.produce("orders", 0, "k", "warm-up");
  prod.flush(10s);

  cluster.set_broker_down(1);
  prod.produce("orders", 0, "k", "while-down");
  EXPECT_THROW(prod.flush(500ms), kafka_error);
  EXPECT_EQ(prod.acked(), 1U);

  cluster.set_broker_up(1);
  prod.flush(10s);
  EXPECT_EQ(prod.acked(), 2U);
  EXPECT_EQ(prod.failed(), 0U);
}

TEST(KafkaMockCluster, UnknownBrokerIdIsAnError) {
  mock_cluster cluster;
  EXPECT_THROW(cluster.set_broker_down(42), kafka_error);
}

}  // namespace
}  // namespace courier::kafka
