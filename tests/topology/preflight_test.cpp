#include "topology/preflight.hpp"
#include "topology/route_settings.hpp"

#include <string>
#include <tuple>
#include <utility>
#include <vector>

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
  cfg.kafka.properties = {{"fetch.wait.max.ms", "10"},        {"session.timeout.ms", "6000"},
                          {"security.protocol", "plaintext"}, {"enable.partition.eof", "false"},
                          {"group.instance.id", "courier-0"}, {"client.id", "courier"}};
  EXPECT_NO_THROW(check_before_start(cfg));
}

// Set in kafka.properties, these would lose records (librdkafka storing offsets of records never
// delivered; a tier record counted as written before a replica has it) or split the checks from
// the clients: each is refused by its key, saying what courier does with it.
TEST(Preflight, PropertiesCourierSetsItselfAreRefusedByTheirKey) {
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"enable.auto.offset.store", "true"},
                                                        {"enable.auto.commit", "false"},
                                                        {"bootstrap.servers", "elsewhere:9092"},
                                                        {"group.id", "other"},
                                                        {"enable.idempotence", "false"},
                                                        {"acks", "1"},
                                                        {"request.required.acks", "0"},
                                                        {"transactional.id", "t"}}) {
    auto cfg = valid_config();
    cfg.kafka.properties = {{name, value}};
    const auto [key, text] = refusal(cfg);
    EXPECT_EQ(key, "kafka.properties." + name);
    EXPECT_NE(text.find("courier sets this property itself"), std::string::npos) << text;
  }
}

// librdkafka reads integers with strtol and keeps 32 bits: "30s" would be 30 ms (a session timeout
// the broker refuses, a consumer that never joins), 4294967297 would be 1.
TEST(Preflight, ANumberLibrdkafkaWouldMisreadIsRefusedByItsKey) {
  for (const auto& [name, value, kept] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"session.timeout.ms", "30s", "30"},
           {"queued.max.messages.kbytes", "4294967297", "1"},
           {"message.max.bytes", "2000000abc", "2000000"}}) {
    auto cfg = valid_config();
    cfg.kafka.properties = {{name, value}};
    const auto [key, text] = refusal(cfg);
    EXPECT_EQ(key, "kafka.properties." + name);
    EXPECT_NE(text.find("whole number"), std::string::npos) << text;
    EXPECT_NE(text.find("read as " + kept), std::string::npos) << text;
  }
}

// Routes share the consumer group: two on one topic would split its partitions, and each would
// see only some of its records.
TEST(Preflight, TwoRoutesOnOneTopicAreRefused) {
  auto cfg = valid_config();
  auto other = cfg.routes.front();
  other.name = "partner-b";
  cfg.routes.push_back(other);
  const auto [key, text] = refusal(cfg);
  EXPECT_EQ(key, "routes[1].topic");
  EXPECT_NE(text.find("brew.shipments.v1"), std::string::npos) << text;
  EXPECT_NE(text.find("shipments"), std::string::npos) << text;
}

TEST(Preflight, ADlqThatAnotherRouteConsumesIsRefusedAndASharedDlqPasses) {
  auto cfg = valid_config();
  auto other = cfg.routes.front();
  other.name = "orders";
  other.topic = "brew.orders.v1";
  other.dlq_topic = "brew.shipments.v1";
  cfg.routes.push_back(other);
  auto [key, text] = refusal(cfg);
  EXPECT_EQ(key, "routes[1].dlq_topic");
  EXPECT_NE(text.find("delivered again"), std::string::npos) << text;

  cfg.routes[1].dlq_topic = "brew.shipments.v1.retry-5s";  // a retry tier of the first route
  std::tie(key, text) = refusal(cfg);
  EXPECT_EQ(key, "routes[1].dlq_topic");
  EXPECT_NE(text.find("\"shipments\""), std::string::npos) << text;

  cfg.routes[0].dlq_topic = "brew.all.dlq";
  cfg.routes[1].dlq_topic = "brew.all.dlq";  // its records name their origin topic and route
  EXPECT_NO_THROW(check_before_start(cfg));
}

// Every route's consumer joins the one group: a static member id is made each route's own, or
// the broker would fence all but one of them.
TEST(RouteConsumerSettings, AStaticMemberIdIsMadeTheRoutesOwn) {
  auto cfg = valid_config();
  cfg.kafka.properties = {{"group.instance.id", "courier-0"}};
  const auto s = route_consumer_settings(cfg, cfg.routes.front());
  EXPECT_EQ(s.extra.at("group.instance.id"), "courier-0-shipments");
  EXPECT_EQ(s.topics.front(), "brew.shipments.v1");
  EXPECT_EQ(
      route_consumer_settings(valid_config(), cfg.routes.front()).extra.count("group.instance.id"),
      0U);
}

// "range" gives partition N of the source and of each tier to one member: the instance that
// delivers a source partition holds the tier records its parked keys wait behind.
TEST(RouteConsumerSettings, ARouteOrderedByKeyMakesTheGroupRangeAndKeepsItsTiersInItsMember) {
  auto cfg = valid_config();
  cfg.routes.push_back(cfg.routes.front());
  cfg.routes[1].name = "updates";
  cfg.routes[1].topic = "brew.updates.v1";
  cfg.routes[1].ordering.mode = ordering_mode::key;
  const auto ordered = route_consumer_settings(cfg, cfg.routes[1]);
  EXPECT_EQ(ordered.extra.at("partition.assignment.strategy"), "range");
  EXPECT_TRUE(ordered.separate_member_topics.empty()) << "source and tiers: one member";
  const auto other = route_consumer_settings(cfg, cfg.routes[0]);
  EXPECT_EQ(other.extra.at("partition.assignment.strategy"), "range")
      << "one group, one protocol: every route's members";
  EXPECT_FALSE(other.separate_member_topics.empty());

  cfg.routes[1].ordering.mode = ordering_mode::none;
  EXPECT_EQ(
      route_consumer_settings(cfg, cfg.routes[1]).extra.count("partition.assignment.strategy"), 0U)
      << "courier's default (cooperative-sticky) when nothing is ordered";
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

  // The retry router's producer is idempotent: more than 5 requests in flight cannot work with it.
  cfg.kafka.properties = {{"max.in.flight.requests.per.connection", "10"}};
  std::tie(key, text) = refusal(cfg);
  EXPECT_EQ(key, "kafka.properties");
  EXPECT_NE(text.find("producer"), std::string::npos) << text;
  EXPECT_NE(text.find("max.in.flight"), std::string::npos) << text;

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
  cfg.routes.back().topic = "brew.partner.v1";
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
