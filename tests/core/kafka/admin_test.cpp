#include "core/kafka/admin.hpp"

#include "core/kafka/error.hpp"
#include "core/kafka_mock/mock_cluster.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace courier::kafka {
namespace {

using namespace std::chrono_literals;

TEST(KafkaAdmin, PartitionCountOfAnExistingTopic) {
  mock_cluster cluster;
  cluster.create_topic("orders", 6);
  EXPECT_EQ(partition_count(cluster.bootstrap_servers(), "orders", 5s), 6);
}

TEST(KafkaAdmin, PartitionCountOfAnUnknownTopicThrowsNamingIt) {
  mock_cluster cluster;
  try {
    partition_count(cluster.bootstrap_servers(), "no-such-topic", 5s);
    FAIL() << "partition_count returned for an unknown topic";
  } catch (const kafka_error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-topic"), std::string::npos) << e.what();
  }
}

// The connection properties go with every admin request: one that says SSL to this plaintext
// cluster cannot read its metadata (before, admin handles took bootstrap.servers alone, so the
// start-up checks passed where the consumer then failed its handshake, and failed on a secured
// cluster where the consumer would have connected).
TEST(KafkaAdmin, AnAdminRequestConnectsWithTheClustersConnectionProperties) {
  mock_cluster cluster;
  cluster.create_topic("orders", 2);
  EXPECT_EQ(partition_count(kafka::cluster{cluster.bootstrap_servers(), {{"client.id", "admin"}}},
                            "orders", 5s),
            2);
  const kafka::cluster over_ssl{cluster.bootstrap_servers(), {{"security.protocol", "ssl"}}};
  EXPECT_THROW(partition_count(over_ssl, "orders", 2s), kafka_error);
}

TEST(KafkaCluster, ConnectionPropertiesKeepHowToConnectAndLeaveTheClientSettings) {
  const auto kept = connection_properties({{"security.protocol", "SASL_SSL"},
                                           {"sasl.mechanism", "PLAIN"},
                                           {"sasl.username", "courier"},
                                           {"ssl.ca.location", "/etc/ca.pem"},
                                           {"client.id", "courier-0"},
                                           {"socket.timeout.ms", "30000"},
                                           {"fetch.wait.max.ms", "10"},
                                           {"session.timeout.ms", "6000"},
                                           {"linger.ms", "5"},
                                           {"group.instance.id", "courier-0"}});
  EXPECT_EQ(kept, (std::map<std::string, std::string>{{"client.id", "courier-0"},
                                                      {"sasl.mechanism", "PLAIN"},
                                                      {"sasl.username", "courier"},
                                                      {"security.protocol", "SASL_SSL"},
                                                      {"socket.timeout.ms", "30000"},
                                                      {"ssl.ca.location", "/etc/ca.pem"}}));
  const kafka::cluster at{"k1:9092", kept};
  const auto props = at.handle_properties({{"group.id", "g"}});
  EXPECT_EQ(props.at("bootstrap.servers"), "k1:9092");
  EXPECT_EQ(props.at("sasl.username"), "courier");
  EXPECT_EQ(props.at("group.id"), "g");
}

TEST(KafkaAdmin, CommittedOffsetsOfAGroupThatNeverCommittedAreEmpty) {
  mock_cluster cluster;
  cluster.create_topic("orders", 4);
  EXPECT_TRUE(
      committed_offsets(cluster.bootstrap_servers(), "fresh-group", "orders", 4, 5s).empty());
}

TEST(KafkaAdmin, CreateTopicsWithNothingToCreateIsANoOp) {
  EXPECT_NO_THROW(create_topics("localhost:1", {}, 1s));
}

// The 2.0.2 mock serves no CreateTopics (it names no controller): the call must fail within
// its timeout with a kafka_error rather than hang. Creation itself is covered end-to-end.
TEST(KafkaAdmin, CreateTopicsFailsWithinItsTimeoutWhenTheClusterCannotServeIt) {
  mock_cluster cluster;
  const auto started = std::chrono::steady_clock::now();
  EXPECT_THROW(create_topics(cluster.bootstrap_servers(), {{"new-topic", 3}}, 1s), kafka_error);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

// The 2.0.2 mock serves no DescribeConfigs or AlterConfigs either: both fail within their
// timeout with a kafka_error naming the topic (and the key). They are covered end-to-end
// (tests/e2e/topics_ensure_test.cpp).
TEST(KafkaAdmin, DescribeTopicConfigFailsWithinItsTimeoutNamingTheTopic) {
  mock_cluster cluster;
  cluster.create_topic("orders", 1);
  const auto started = std::chrono::steady_clock::now();
  try {
    describe_topic_config(cluster.bootstrap_servers(), "orders", 1s);
    FAIL() << "describe_topic_config returned on a cluster that cannot serve it";
  } catch (const kafka_error& e) {
    EXPECT_NE(std::string(e.what()).find("'orders'"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

TEST(KafkaAdmin, SetTopicConfigFailsWithinItsTimeoutNamingTheTopicAndTheKey) {
  mock_cluster cluster;
  cluster.create_topic("orders", 1);
  const auto started = std::chrono::steady_clock::now();
  try {
    set_topic_config(cluster.bootstrap_servers(), "orders", "max.message.bytes", "2000000", 1s);
    FAIL() << "set_topic_config returned on a cluster that cannot serve it";
  } catch (const kafka_error& e) {
    EXPECT_NE(std::string(e.what()).find("'orders'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("max.message.bytes"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

}  // namespace
}  // namespace courier::kafka
