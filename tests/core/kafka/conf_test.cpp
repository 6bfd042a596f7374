#include "core/kafka/conf.hpp"

#include "core/kafka/error.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace courier::kafka {
namespace {

TEST(KafkaConf, ValidPropertiesBuildAConf) {
  const conf_ptr conf = make_conf({{"bootstrap.servers", "localhost:9092"}, {"linger.ms", "5"}});
  ASSERT_NE(conf, nullptr);
  char value[64];
  std::size_t size = sizeof(value);
  ASSERT_EQ(rd_kafka_conf_get(conf.get(), "linger.ms", value, &size), RD_KAFKA_CONF_OK);
  EXPECT_EQ(std::string(value), "5");
}

// kafka.properties go to the consumers and the producer alike: each takes what librdkafka lists
// for its role or both, so neither warns about the other's on every start.
TEST(KafkaConf, EachClientTakesItsOwnAndTheSharedProperties) {
  const std::map<std::string, std::string> shared{{"bootstrap.servers", "b:9092"},
                                                  {"socket.timeout.ms", "9000"},
                                                  {"message.max.bytes", "2000000"},
                                                  {"auto.commit.interval.ms", "100"},
                                                  {"fetch.wait.max.ms", "10"},
                                                  {"queued.max.messages.kbytes", "4096"},
                                                  {"linger.ms", "5"},
                                                  {"compression.type", "lz4"},
                                                  {"no.such.property", "1"}};
  using names = std::map<std::string, std::string>;
  EXPECT_EQ(for_client(RD_KAFKA_PRODUCER, shared), (names{{"bootstrap.servers", "b:9092"},
                                                          {"socket.timeout.ms", "9000"},
                                                          {"message.max.bytes", "2000000"},
                                                          {"linger.ms", "5"},
                                                          {"compression.type", "lz4"},
                                                          {"no.such.property", "1"}}));
  EXPECT_EQ(for_client(RD_KAFKA_CONSUMER, shared), (names{{"bootstrap.servers", "b:9092"},
                                                          {"socket.timeout.ms", "9000"},
                                                          {"message.max.bytes", "2000000"},
                                                          {"auto.commit.interval.ms", "100"},
                                                          {"fetch.wait.max.ms", "10"},
                                                          {"queued.max.messages.kbytes", "4096"},
                                                          {"no.such.property", "1"}}));
}

TEST(KafkaConf, UnknownPropertyIsNamedInTheError) {
  try {
    make_conf({{"bootstrap.servers", "localhost:9092"}, {"no.such.property", "1"}});
    FAIL() << "make_conf accepted an unknown property";
  } catch (const kafka_error& e) {
    EXPECT_NE(std::string(e.what()).find("no.such.property"), std::string::npos) << e.what();
    EXPECT_EQ(e.code(), RD_KAFKA_RESP_ERR__INVALID_ARG);
  }
}

TEST(KafkaConf, InvalidValueNamesThePropertyAndLibrdkafkasReason) {
  try {
    make_conf({{"enable.idempotence", "maybe"}});
    FAIL() << "make_conf accepted an invalid value";
  } catch (const kafka_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("enable.idempotence"), std::string::npos) << what;
    EXPECT_NE(what.find("true or false"), std::string::npos) << what;  // librdkafka's reason
  }
}

}  // namespace
}  // namespace courier::kafka
