#include "core/kafka/conf.hpp"

#include "core/kafka/error.hpp"

#include <gtest/gtest.h>

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
