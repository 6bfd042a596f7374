#include "topology/preflight.hpp"

#include <string>
#include <tuple>

#include <gtest/gtest.h>

namespace courier::topology {
namespace {

courier_config valid_config() {
  courier_config cfg;
  cfg.kafka.brokers = "127.0.0.1:9092";
  cfg.kafka.group_id = "courier";
  route_config r;
  r.name = "shipments";
  r.topic = "brew.shipments.v1";
  r.url = "http://127.0.0.1:8090/deliver";
  r.hmac_secret = "s";
  cfg.routes.push_back(r);
  return cfg;
}

// The key of the config_error check_before_start throws, and its text.
std::pair<std::string, std::string> refusal(const courier_config& cfg) {
  try {
    check_before_start(cfg);
  } catch (const config_error& e) {
    return {e.key(), e.what()};
  }
  return {};
}

TEST(Preflight, AValidConfigurationPasses) {
  auto cfg = valid_config();
  cfg.kafka.properties = {{"fetch.wait.max.ms", "10"}, {"session.timeout.ms", "6000"}};
  EXPECT_NO_THROW(check_before_start(cfg));
}

TEST(Preflight, AnInvalidKafkaPropertyValueIsRefusedByItsKey) {
  auto cfg = valid_config();
  cfg.kafka.properties = {{"fetch.wait.max.ms", "banana"}, {"session.timeout.ms", "6000"}};
  const auto [key, text] = refusal(cfg);
  EXPECT_EQ(key, "kafka.properties.fetch.wait.max.ms");
  EXPECT_NE(text.find("Invalid value"), std::string::npos) << text;
}

TEST(Preflight, AnUnknownKafkaPropertyIsRefusedByItsKey) {
  auto cfg = valid_config();
  cfg.kafka.properties = {{"fetch.wait.max.msec", "10"}};
  const auto [key, text] = refusal(cfg);
  EXPECT_EQ(key, "kafka.properties.fetch.wait.max.msec");
  EXPECT_NE(text.find("unknown"), std::string::npos) << text;
}

TEST(Preflight, KafkaPropertiesThatOnlyFailTogetherAreRefusedBeforeStart) {
  auto cfg = valid_config();
  // Each is valid alone; librdkafka refuses the pair when the consumer is created.
  cfg.kafka.properties = {{"fetch.max.bytes", "2097152"}, {"message.max.bytes", "4000000"}};
  auto [key, text] = refusal(cfg);
  EXPECT_EQ(key, "kafka.properties");
  EXPECT_NE(text.find("`fetch.max.bytes` must be >= `message.max.bytes`"), std::string::npos)
      << text;

  // The retry router's producer is idempotent: acks=1 cannot work with it.
  cfg.kafka.properties = {{"acks", "1"}};
  std::tie(key, text) = refusal(cfg);
  EXPECT_EQ(key, "kafka.properties");
  EXPECT_NE(text.find("producer"), std::string::npos) << text;
  EXPECT_NE(text.find("acks"), std::string::npos) << text;

  // A larger message.max.bytes alone is fine: courier's fetch.max.bytes default follows it.
  cfg.kafka.properties = {{"message.max.bytes", "10000000"}};
  EXPECT_NO_THROW(check_before_start(cfg));
}

TEST(Preflight, AnHttpsUrlWithTheSystemCaStorePasses) {
  auto cfg = valid_config();
  cfg.routes.front().url = "https://partner.example/webhooks";
  EXPECT_NO_THROW(check_before_start(cfg));
}

TEST(Preflight, AMissingCaFileIsRefusedByItsKey) {
  auto cfg = valid_config();
  cfg.routes.push_back(cfg.routes.front());
  cfg.routes.back().name = "partner";
  cfg.routes.back().url = "https://partner.example/webhooks";
  cfg.routes.back().tls.ca_file = "/nonexistent/ca.pem";
  const auto [key, text] = refusal(cfg);
  EXPECT_EQ(key, "routes[1].tls.ca_file");
  EXPECT_NE(text.find("/nonexistent/ca.pem"), std::string::npos) << text;
}

TEST(Preflight, AMissingClientCertificateIsRefusedByItsKey) {
  auto cfg = valid_config();
  cfg.routes.front().url = "https://partner.example/webhooks";
  cfg.routes.front().tls.client_cert_file = "/nonexistent/client.pem";
  cfg.routes.front().tls.client_key_file = "/nonexistent/client.key";
  const auto [key, text] = refusal(cfg);
  EXPECT_EQ(key, "routes[0].tls.client_cert_file");
  EXPECT_NE(text.find("/nonexistent/client.pem"), std::string::npos) << text;
}

TEST(Preflight, APortOutOfRangeIsRefused) {
  auto cfg = valid_config();
  cfg.routes.front().url = "http://127.0.0.1:99999/deliver";
  const auto [key, text] = refusal(cfg);
  EXPECT_EQ(key, "routes[0].url");
  EXPECT_NE(text.find("99999"), std::string::npos) << text;
}

TEST(Preflight, AUrlWithoutAHostIsRefused) {
  auto cfg = valid_config();
  cfg.routes.front().url = "http://:8090/deliver";
  EXPECT_EQ(refusal(cfg).first, "routes[0].url");
}

}  // namespace
}  // namespace courier::topology
