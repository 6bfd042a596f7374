#include "core/config/config.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/fake_env.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/core/config/config_error_of.hpp"

namespace courier {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::milliseconds;
using ::testing::HasSubstr;
using ::testing::Not;
using courier::testing::fake_env;
using courier::testing::temp_dir;

json minimal_route() {
  return {{"name", "shipments"},
          {"topic", "brew.shipments.v1"},
          {"url", "http://127.0.0.1:8090/deliver"},
          {"hmac_secret", "s3cret"}};
}

json doc_with_route(const json& route) { return {{"routes", json::array({route})}}; }

using testing::error_of;

config_error parse_error_of(const json& doc) {
  return error_of([&] { parse_config(doc); });
}

config_error validate_error_of(const json& doc) {
  return error_of([&] { validate(parse_config(doc)); });
}

TEST(Config, MinimalRouteGetsEveryDefault) {
  const courier_config cfg = parse_config(doc_with_route(minimal_route()));
  EXPECT_EQ(cfg.kafka.brokers, "127.0.0.1:9092");
  EXPECT_EQ(cfg.kafka.group_id, "courier");
  EXPECT_TRUE(cfg.kafka.properties.empty());
  ASSERT_EQ(cfg.routes.size(), 1U);
  const route_config& r = cfg.routes[0];
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.max_in_flight, 256U);
  EXPECT_EQ(r.max_in_flight_per_partition, 0U) << "no bound of its own by default";
  EXPECT_EQ(r.pause_after, milliseconds{10000});
  EXPECT_EQ(r.breaker.trip_after, 5);
  EXPECT_EQ(r.breaker.open_timeout, milliseconds{15000});
  EXPECT_EQ(r.breaker.half_open_max_requests, 1);
  EXPECT_EQ(r.retry.initial, milliseconds{200});
  EXPECT_DOUBLE_EQ(r.retry.multiplier, 2.0);
  EXPECT_EQ(r.retry.max, milliseconds{5000});
  EXPECT_EQ(r.retry.max_attempts, 4);
  EXPECT_EQ(r.retry.max_retry_after, milliseconds{30000});
  EXPECT_EQ(r.retry_tiers, (std::vector<milliseconds>{milliseconds{5000}, milliseconds{30000},
                                                      milliseconds{300000}}));
  EXPECT_EQ(r.dlq_topic, "");
  EXPECT_EQ(r.http.max_connections, 256U) << "as many as max_in_flight: connections do not cap it";
  EXPECT_EQ(r.http.timeout, milliseconds{5000});
  EXPECT_EQ(r.http.max_response_bytes, 65536U);
  EXPECT_EQ(r.http.max_header_bytes, 8192U);
  EXPECT_EQ(r.http.gather_answers, milliseconds{1});
  EXPECT_FALSE(r.allow_private_targets) << "the SSRF guard is on unless a route opts out";
  EXPECT_EQ(r.tls.ca_file, "") << "the system's CA store";
  EXPECT_EQ(r.tls.client_cert_file, "");
  EXPECT_EQ(r.tls.client_key_file, "");
  EXPECT_NO_THROW(validate(cfg));
}

TEST(Config, ReadsEveryField) {
  const json doc = json::parse(R"({
    "kafka": {"brokers": "k1:9092,k2:9092", "group_id": "g",
              "properties": {"session.timeout.ms": "45000"}},
    "routes": [{
      "name": "n", "topic": "t", "url": "https://h/p", "hmac_secret": "x",
      "content_type": "text/plain", "max_in_flight": 10,
      "max_in_flight_per_partition": 3, "pause_after": "1m",
      "head_of_line_records": 40, "head_of_line_age": "45s",
      "breaker": {"trip_after": 7, "open_timeout": "2s",
                  "half_open_max_requests": 2},
      "retry": {"initial": "100ms", "multiplier": 1.5, "max": "1m",
                "max_attempts": 9, "max_retry_after": "2m"},
      "http": {"max_connections": 8, "timeout": "750ms",
               "max_response_bytes": 1024}}]})");
  const courier_config cfg = parse_config(doc);
  EXPECT_EQ(cfg.kafka.brokers, "k1:9092,k2:9092");
  EXPECT_EQ(cfg.kafka.group_id, "g");
  EXPECT_EQ(cfg.kafka.properties.at("session.timeout.ms"), "45000");
  const route_config& r = cfg.routes.at(0);
  EXPECT_EQ(r.name, "n");
  EXPECT_EQ(r.topic, "t");
  EXPECT_EQ(r.url, "https://h/p");
  EXPECT_EQ(r.hmac_secret, "x");
  EXPECT_EQ(r.content_type, "text/plain");
  EXPECT_EQ(r.max_in_flight, 10U);
  EXPECT_EQ(r.max_in_flight_per_partition, 3U);
  EXPECT_EQ(r.pause_after, milliseconds{60000});
  EXPECT_EQ(r.head_of_line_records, 40U);
  EXPECT_EQ(r.head_of_line_age, milliseconds{45000});
  EXPECT_EQ(r.breaker.trip_after, 7);
  EXPECT_EQ(r.breaker.open_timeout, milliseconds{2000});
  EXPECT_EQ(r.breaker.half_open_max_requests, 2);
  EXPECT_EQ(r.retry.initial, milliseconds{100});
  EXPECT_DOUBLE_EQ(r.retry.multiplier, 1.5);
  EXPECT_EQ(r.retry.max, milliseconds{60000});
  EXPECT_EQ(r.retry.max_attempts, 9);
  EXPECT_EQ(r.retry.max_retry_after, milliseconds{120000});

  EXPECT_EQ(r.http.max_connections, 8U);
  EXPECT_EQ(r.http.timeout, milliseconds{750});
  EXPECT_EQ(r.http.max_response_bytes, 1024U);
  EXPECT_NO_THROW(validate(cfg));
}

TEST(Config, ReadsTheEndpointFailureRulesOfTheBreaker) {
  json route = minimal_route();
  const auto defaults = parse_config(doc_with_route(route)).routes.at(0).breaker;
  EXPECT_EQ(defaults.endpoint_failure_statuses, (std::vector<int>{401, 403}));
  EXPECT_EQ(defaults.trip_on_permanent_run, 20);
  EXPECT_EQ(defaults.gone_probe_interval, milliseconds{300000});

  route["breaker"] = {{"endpoint_failure_statuses", {401, 403, 407}},
                      {"trip_on_permanent_run", 0},
                      {"gone_probe_interval", "0s"}};
  route["max_in_flight_per_partition"] = 0;
  const auto cfg = parse_config(doc_with_route(route));
  EXPECT_EQ(cfg.routes.at(0).breaker.endpoint_failure_statuses, (std::vector<int>{401, 403, 407}));
  EXPECT_EQ(cfg.routes.at(0).breaker.trip_on_permanent_run, 0) << "0 turns the rule off";
  EXPECT_EQ(cfg.routes.at(0).breaker.gone_probe_interval, milliseconds{0}) << "0: never probe";
  EXPECT_EQ(cfg.routes.at(0).max_in_flight_per_partition, 0U) << "0: no bound of its own";
  EXPECT_NO_THROW(validate(cfg));
}

TEST(Config, NamesTheBadEndpointFailureStatus) {
  json route = minimal_route();
  route["breaker"] = {{"endpoint_failure_statuses", {401, 99}}};
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(),
            "routes[0].breaker.endpoint_failure_statuses[1]");
  route["breaker"] = {{"endpoint_failure_statuses", {204}}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(),
            "routes[0].breaker.endpoint_failure_statuses[0]");
  route["breaker"] = {{"endpoint_failure_statuses", 401}};
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(),
            "routes[0].breaker.endpoint_failure_statuses");
  route["breaker"] = {{"trip_on_permanent_run", -1}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(),
            "routes[0].breaker.trip_on_permanent_run");
  route = minimal_route();
  route["max_in_flight_per_partition"] = -2;
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].max_in_flight_per_partition");
}

TEST(Config, ReadsANumberDurationAsSeconds) {
  json route = minimal_route();
  route["pause_after"] = 2;
  route["breaker"] = {{"open_timeout", 1.5}};
  const route_config r = parse_config(doc_with_route(route)).routes.at(0);
  EXPECT_EQ(r.pause_after, milliseconds{2000});
  EXPECT_EQ(r.breaker.open_timeout, milliseconds{1500});
}

TEST(Config, PassesKafkaPropertiesThroughAsText) {
  const json doc = {{"kafka", {{"properties", {{"a", "x"}, {"b", 45000}, {"c", true}}}}}};
  const auto props = parse_config(doc).kafka.properties;
  EXPECT_EQ(props, (std::map<std::string, std::string>{{"a", "x"}, {"b", "45000"}, {"c", "true"}}));
}

TEST(Config, NamesAnUnknownKeyAtEveryLevel) {
  EXPECT_EQ(parse_error_of({{"rotues", json::array()}}).key(), "rotues");
  EXPECT_EQ(parse_error_of({{"kafka", {{"broker", "x"}}}}).key(), "kafka.broker");
  json route = minimal_route();
  route["breaker"] = {{"trip_afer", 3}};
  const config_error e = parse_error_of(doc_with_route(route));
  EXPECT_EQ(e.key(), "routes[0].breaker.trip_afer");
  EXPECT_THAT(e.what(), HasSubstr("unknown key"));
  EXPECT_THAT(e.what(), HasSubstr("trip_after"));
}

TEST(Config, NamesTheKeyAndExpectedTypeOfAWrongType) {
  json route = minimal_route();
  route["breaker"] = {{"trip_after", "5"}};
  EXPECT_STREQ(parse_error_of(doc_with_route(route)).what(),
               "routes[0].breaker.trip_after: expected an integer, got string");

  route = minimal_route();
  route["name"] = 5;
  EXPECT_STREQ(parse_error_of(doc_with_route(route)).what(),
               "routes[0].name: expected a string, got number");

  route = minimal_route();
  route["retry"] = {{"max_attempts", 2.5}};
  EXPECT_STREQ(parse_error_of(doc_with_route(route)).what(),
               "routes[0].retry.max_attempts: expected an integer, got 2.5");

  route = minimal_route();
  route["http"] = json::array();
  EXPECT_STREQ(parse_error_of(doc_with_route(route)).what(),
               "routes[0].http: expected an object, got array");

  route = minimal_route();
  route["pause_after"] = true;
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].pause_after");

  EXPECT_STREQ(parse_error_of({{"routes", json::object()}}).what(),
               "routes: expected an array, got object");
  EXPECT_EQ(parse_error_of({{"kafka", {{"properties", {{"x", nullptr}}}}}}).key(),
            "kafka.properties[\"x\"]");
  EXPECT_EQ(parse_error_of(json::array()).key(), "<root>");
}

TEST(Config, NamesTheKeyOfANegativeInteger) {
  json route = minimal_route();
  route["breaker"] = {{"trip_after", -3}};
  EXPECT_STREQ(validate_error_of(doc_with_route(route)).what(),
               "routes[0].breaker.trip_after: must be a positive integer, got -3");

  route = minimal_route();
  route["max_in_flight"] = -1;
  EXPECT_STREQ(parse_error_of(doc_with_route(route)).what(),
               "routes[0].max_in_flight: must be a positive integer, got -1");
}

TEST(Config, NamesTheKeyOfAZeroCount) {
  json route = minimal_route();
  route["retry"] = {{"max_attempts", 0}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].retry.max_attempts");
  route = minimal_route();
  route["http"] = {{"max_connections", 0}};
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].http.max_connections");
  route = minimal_route();
  route["breaker"] = {{"half_open_max_requests", 0}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(),
            "routes[0].breaker.half_open_max_requests");
}

TEST(Config, NamesTheKeyOfAMalformedOrNegativeDuration) {
  json route = minimal_route();
  route["breaker"] = {{"open_timeout", "-5s"}};
  const config_error e = parse_error_of(doc_with_route(route));
  EXPECT_EQ(e.key(), "routes[0].breaker.open_timeout");
  EXPECT_THAT(e.what(), HasSubstr("\"500ms\""));
  EXPECT_THAT(e.what(), HasSubstr("got \"-5s\""));

  route = minimal_route();
  route["retry"] = {{"initial", -1}};
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].retry.initial");
}

TEST(Config, RejectsAZeroDuration) {
  json route = minimal_route();
  route["breaker"] = {{"open_timeout", "0s"}};
  EXPECT_STREQ(validate_error_of(doc_with_route(route)).what(),
               "routes[0].breaker.open_timeout: must be a positive duration, got 0s");
  route = minimal_route();
  route["pause_after"] = 0;
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].pause_after");
}

TEST(Config, RejectsAUrlThatIsNotHttp) {
  for (const char* url :
       {"", "ftp://h/x", "127.0.0.1:8090/deliver", "http://", "http:///x", "HTTP//h"}) {
    json route = minimal_route();
    route["url"] = url;
    EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].url") << url;
  }
}

TEST(Config, AcceptsAnHttpsUrl) {
  json route = minimal_route();
  route["url"] = "https://partner.example/hook";
  EXPECT_NO_THROW(validate(parse_config(doc_with_route(route))));
}

TEST(Config, ReadsTheSsrfAllowanceAndTheTlsFiles) {
  json route = minimal_route();
  route["url"] = "https://partner.example/hook";
  route["allow_private_targets"] = true;
  route["tls"] = {{"ca_file", "/etc/courier/partner-ca.pem"},
                  {"client_cert_file", "/etc/courier/client.pem"},
                  {"client_key_file", "/etc/courier/client.key"}};
  const auto cfg = parse_config(doc_with_route(route));
  const auto& r = cfg.routes.at(0);
  EXPECT_TRUE(r.allow_private_targets);
  EXPECT_EQ(r.tls.ca_file, "/etc/courier/partner-ca.pem");
  EXPECT_EQ(r.tls.client_cert_file, "/etc/courier/client.pem");
  EXPECT_EQ(r.tls.client_key_file, "/etc/courier/client.key");
  EXPECT_NO_THROW(validate(cfg));
}

TEST(Config, NamesTheBadSsrfAllowanceAndTlsKeys) {
  json route = minimal_route();
  route["allow_private_targets"] = "yes";
  EXPECT_STREQ(parse_error_of(doc_with_route(route)).what(),
               "routes[0].allow_private_targets: expected true or false, got string");
  route = minimal_route();
  route["tls"] = {{"ca_flie", "x"}};
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].tls.ca_flie");
  route["tls"] = {{"ca_file", 1}};
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].tls.ca_file");
  route["tls"] = {{"client_cert_file", "c.pem"}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].tls.client_key_file");
  route["tls"] = {{"client_key_file", "c.key"}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].tls.client_cert_file");
}

TEST(Config, ReadsAndBoundsTheHeaderCap) {
  json route = minimal_route();
  route["http"] = {{"max_header_bytes", 16384}};
  EXPECT_EQ(parse_config(doc_with_route(route)).routes.at(0).http.max_header_bytes, 16384U);
  route["http"] = {{"max_header_bytes", 0}};
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].http.max_header_bytes");
  route["http"] = {{"max_header_bytes", 2000000}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].http.max_header_bytes");
}

TEST(Config, ReadsAndBoundsTheAnswerGathering) {
  json route = minimal_route();
  route["http"] = {{"gather_answers", "0"}};
  EXPECT_EQ(parse_config(doc_with_route(route)).routes.at(0).http.gather_answers,
            std::chrono::milliseconds{0});
  route["http"] = {{"gather_answers", "5ms"}};
  EXPECT_EQ(parse_config(doc_with_route(route)).routes.at(0).http.gather_answers,
            std::chrono::milliseconds{5});
  route["http"] = {{"gather_answers", "soon"}};
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].http.gather_answers");
  route["http"] = {{"gather_answers", "1s"}};
  const auto e = validate_error_of(doc_with_route(route));
  EXPECT_EQ(e.key(), "routes[0].http.gather_answers");
  EXPECT_NE(std::string{e.what()}.find("at most 100ms"), std::string::npos) << e.what();
}

TEST(Config, ReadsTheConnectionAgeAndRefusesZero) {
  json route = minimal_route();
  EXPECT_EQ(parse_config(doc_with_route(route)).routes.at(0).http.max_connection_age,
            std::chrono::minutes{5});
  route["http"] = {{"max_connection_age", "30s"}};
  EXPECT_EQ(parse_config(doc_with_route(route)).routes.at(0).http.max_connection_age,
            std::chrono::seconds{30});
  route["http"] = {{"max_connection_age", "0"}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].http.max_connection_age");
  route["http"] = {{"max_connection_age", "forever"}};
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].http.max_connection_age");
}

TEST(Config, ReadsTheConnectTimeoutPerAddressAndRefusesZero) {
  json route = minimal_route();
  EXPECT_EQ(parse_config(doc_with_route(route)).routes.at(0).http.connect_timeout,
            std::chrono::seconds{2});
  route["http"] = {{"connect_timeout", "500ms"}};
  EXPECT_EQ(parse_config(doc_with_route(route)).routes.at(0).http.connect_timeout,
            std::chrono::milliseconds{500});
  route["http"] = {{"connect_timeout", "0"}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].http.connect_timeout");
}

TEST(Config, ReadsAndBoundsTheHttpIoThreads) {
  json doc = doc_with_route(minimal_route());
  EXPECT_EQ(parse_config(doc).http_io_threads, courier_config{}.http_io_threads);
  doc["http_io_threads"] = 4;
  EXPECT_EQ(parse_config(doc).http_io_threads, 4U);
  doc["http_io_threads"] = 0;
  EXPECT_EQ(parse_error_of(doc).key(), "http_io_threads");
  doc["http_io_threads"] = "2";
  EXPECT_EQ(parse_error_of(doc).key(), "http_io_threads");
  doc["http_io_threads"] = 65;
  const config_error e = validate_error_of(doc);
  EXPECT_EQ(e.key(), "http_io_threads");
  EXPECT_THAT(e.problem(), HasSubstr("at most 64"));
}

TEST(Config, RequiresAtLeastOneRoute) {
  EXPECT_EQ(validate_error_of(json::object()).key(), "routes");
  EXPECT_EQ(validate_error_of({{"routes", json::array()}}).key(), "routes");
}

TEST(Config, RequiresUniqueRouteNames) {
  json second = minimal_route();
  second["topic"] = "other";
  const json doc = {{"routes", json::array({minimal_route(), second})}};
  const config_error e = validate_error_of(doc);
  EXPECT_EQ(e.key(), "routes[1].name");
  EXPECT_THAT(e.what(), HasSubstr("duplicate"));
}

TEST(Config, RequiresANameAndATopic) {
  json route = minimal_route();
  route.erase("name");
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].name");
  route = minimal_route();
  route["topic"] = "";
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].topic");
}

TEST(Config, RejectsAMultiplierBelowOne) {
  json route = minimal_route();
  route["retry"] = {{"multiplier", 0.5}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].retry.multiplier");
}

TEST(Config, RejectsAMaximumBackoffBelowTheInitialOne) {
  json route = minimal_route();
  route["retry"] = {{"initial", "10s"}, {"max", "5s"}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].retry.max");
}

TEST(Config, ReadsRetryTiersAndTheDlqTopic) {
  json route = minimal_route();
  route["retry_tiers"] = {"1s", 30, "2m"};
  route["dlq_topic"] = "orders.parked";
  const courier_config cfg = parse_config(doc_with_route(route));
  EXPECT_EQ(
      cfg.routes[0].retry_tiers,
      (std::vector<milliseconds>{milliseconds{1000}, milliseconds{30000}, milliseconds{120000}}));
  EXPECT_EQ(cfg.routes[0].dlq_topic, "orders.parked");
}

TEST(Config, AcceptsNoRetryTiersAtAll) {
  json route = minimal_route();
  route["retry_tiers"] = json::array();
  const courier_config cfg = parse_config(doc_with_route(route));
  EXPECT_TRUE(cfg.routes[0].retry_tiers.empty());
  EXPECT_NO_THROW(validate(cfg));
}

TEST(Config, NamesTheBadRetryTier) {
  json route = minimal_route();
  route["retry_tiers"] = {"5s", "soon"};
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].retry_tiers[1]");
  route["retry_tiers"] = {"5s", "5s"};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].retry_tiers[1]");
  route["retry_tiers"] = "5s";
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].retry_tiers");
}

TEST(Config, RequiresTheDlqTopicToDifferFromTheSource) {
  json route = minimal_route();
  route["dlq_topic"] = route["topic"];
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].dlq_topic");
}

TEST(Config, RequiresASecretWithoutPrintingOne) {
  json route = minimal_route();
  route.erase("hmac_secret");
  const config_error e = validate_error_of(doc_with_route(route));
  EXPECT_EQ(e.key(), "routes[0].hmac_secret");
  EXPECT_THAT(e.what(), HasSubstr("HMAC_SECRET"));
}

TEST(Config, LoadsAFile) {
  const temp_dir dir;
  const fs::path p = dir.write("c.json", doc_with_route(minimal_route()).dump());
  const courier_config cfg = load_config_file(p);
  ASSERT_EQ(cfg.routes.size(), 1U);
  EXPECT_EQ(cfg.routes[0].topic, "brew.shipments.v1");
}

TEST(Config, NamesTheFileItCannotRead) {
  const temp_dir dir;
  const fs::path missing = dir.path() / "missing.json";
  const config_error e = error_of([&] { load_config_file(missing); });
  EXPECT_EQ(e.key(), missing.string());
  EXPECT_THAT(e.what(), HasSubstr("cannot read"));
  EXPECT_EQ(error_of([&] { load_config_file(dir.path()); }).key(), dir.path().string());
}

TEST(Config, GivesTheBytePositionOfAJsonSyntaxError) {
  const temp_dir dir;
  const fs::path p = dir.write("bad.json", R"({"routes": [})");
  const config_error e = error_of([&] { load_config_file(p); });
  EXPECT_EQ(e.key(), p.string());
  EXPECT_THAT(e.what(), HasSubstr("invalid JSON at byte 13"));
  EXPECT_THAT(e.what(), Not(HasSubstr("json.exception")));
}

TEST(Config, ShippedTopologyLoadsAndValidatesWithASecretFromTheEnvironment) {
  courier_config cfg = load_config_file(fs::path{COURIER_SOURCE_DIR} / "topology/courier.json");
  ASSERT_EQ(cfg.routes.size(), 1U);
  const route_config& r = cfg.routes[0];
  EXPECT_EQ(r.name, "shipments");
  EXPECT_EQ(r.topic, "brew.shipments.v1");
  EXPECT_EQ(r.url, "http://127.0.0.1:8090/deliver");
  EXPECT_EQ(r.hmac_secret, "");
  EXPECT_EQ(r.breaker.trip_after, 5);
  EXPECT_EQ(r.pause_after, milliseconds{10000});
  EXPECT_EQ(r.breaker.open_timeout, milliseconds{15000});
  EXPECT_EQ(error_of([&] { validate(cfg); }).key(), "routes[0].hmac_secret");
  apply_overrides(cfg, overrides_from_env(fake_env({{"HMAC_SECRET", "s"}})));
  EXPECT_NO_THROW(validate(cfg));
}

TEST(Config, ReadsOverridesFromTheEnvironment) {
  const config_overrides o = overrides_from_env(fake_env(
      {{"KAFKA_BROKERS", "k:1"}, {"WEBHOOK_URL", "http://h/x"}, {"HMAC_SECRET", "s3cret"}}));
  EXPECT_EQ(o.brokers, "k:1");
  EXPECT_EQ(o.webhook_url, "http://h/x");
  EXPECT_EQ(o.hmac_secret, "s3cret");
  EXPECT_EQ(o.cb_trip_after, std::nullopt);
  EXPECT_EQ(o.pause_after, std::nullopt);
  EXPECT_EQ(o.cb_open_timeout, std::nullopt);
}

TEST(Config, TreatsAnEmptyVariableAsUnset) {
  const config_overrides o = overrides_from_env(
      fake_env({{"KAFKA_BROKERS", ""}, {"WEBHOOK_URL", ""}, {"HMAC_SECRET", ""}}));
  EXPECT_EQ(o.brokers, std::nullopt);
  EXPECT_EQ(o.webhook_url, std::nullopt);
  EXPECT_EQ(o.hmac_secret, std::nullopt);
}

TEST(Config, ReadsTheSecretFromHmacSecretFileWithoutTheTrailingNewline) {
  const temp_dir dir;
  const fs::path unix_file = dir.write("secret", "s3cret\n");
  EXPECT_EQ(overrides_from_env(fake_env({{"HMAC_SECRET_FILE", unix_file.string()}})).hmac_secret,
            "s3cret");
  const fs::path dos_file = dir.write("secret.dos", "s3 cret\r\n");
  EXPECT_EQ(overrides_from_env(fake_env({{"HMAC_SECRET_FILE", dos_file.string()}})).hmac_secret,
            "s3 cret");
}

TEST(Config, RejectsAnUnreadableOrEmptySecretFile) {
  const temp_dir dir;
  const std::string missing = (dir.path() / "missing").string();
  EXPECT_EQ(error_of([&] {
              overrides_from_env(fake_env({{"HMAC_SECRET_FILE", missing}}));
            }).key(),
            "HMAC_SECRET_FILE");
  const std::string empty = dir.write("empty", "\n").string();
  const config_error e = error_of([&] {
    overrides_from_env(fake_env({{"HMAC_SECRET_FILE", empty}}));
  });
  EXPECT_EQ(e.key(), "HMAC_SECRET_FILE");
  EXPECT_THAT(e.what(), HasSubstr("empty"));
}

TEST(Config, RejectsBothHmacSecretAndHmacSecretFile) {
  const temp_dir dir;
  const std::string file = dir.write("secret", "a").string();
  EXPECT_EQ(error_of([&] {
              overrides_from_env(fake_env({{"HMAC_SECRET", "b"}, {"HMAC_SECRET_FILE", file}}));
            }).key(),
            "HMAC_SECRET_FILE");
}

TEST(Config, NamesWebhookUrlWhenItIsNotHttp) {
  EXPECT_EQ(error_of([] {
              overrides_from_env(fake_env({{"WEBHOOK_URL", "ftp://h"}}));
            }).key(),
            "WEBHOOK_URL");
}

TEST(Config, AppliesOverridesToEveryRoute) {
  json second = minimal_route();
  second["name"] = "other";
  courier_config cfg = parse_config({{"routes", json::array({minimal_route(), second})}});
  config_overrides o;
  o.brokers = "k:1";
  o.webhook_url = "http://h/x";
  o.hmac_secret = "new";
  o.cb_trip_after = 9;
  o.pause_after = milliseconds{42000};
  o.cb_open_timeout = milliseconds{7000};
  apply_overrides(cfg, o);
  EXPECT_EQ(cfg.kafka.brokers, "k:1");
  for (const route_config& r : cfg.routes) {
    EXPECT_EQ(r.url, "http://h/x");
    EXPECT_EQ(r.hmac_secret, "new");
    EXPECT_EQ(r.breaker.trip_after, 9);
    EXPECT_EQ(r.pause_after, milliseconds{42000});
    EXPECT_EQ(r.breaker.open_timeout, milliseconds{7000});
  }
}

TEST(Config, LeavesTheConfigAloneWhenNothingIsOverridden) {
  const courier_config before = parse_config(doc_with_route(minimal_route()));
  courier_config after = before;
  apply_overrides(after, config_overrides{});
  EXPECT_EQ(after.kafka.brokers, before.kafka.brokers);
  EXPECT_EQ(after.routes[0].url, before.routes[0].url);
  EXPECT_EQ(after.routes[0].hmac_secret, before.routes[0].hmac_secret);
  EXPECT_EQ(after.routes[0].breaker.trip_after, before.routes[0].breaker.trip_after);
  EXPECT_EQ(after.routes[0].pause_after, before.routes[0].pause_after);
  EXPECT_EQ(after.routes[0].breaker.open_timeout, before.routes[0].breaker.open_timeout);
}

// -- the partner's contract ---------------------------------------------------------------

TEST(PartnerContract, NoneOfItIsOnByDefaultButTraceContextIsForwarded) {
  const auto r = parse_config(doc_with_route(minimal_route())).routes.at(0);
  EXPECT_FALSE(r.rate_limit);
  EXPECT_FALSE(r.retry_budget);
  EXPECT_TRUE(r.headers.empty());
  EXPECT_FALSE(r.auth.any());
  EXPECT_EQ(r.forward_record_headers, (std::vector<std::string>{"traceparent", "tracestate"}));
}

TEST(PartnerContract, ReadsTheRateLimitAndTheRetryBudgetWithTheirDefaults) {
  auto route = minimal_route();
  route["rate_limit"] = {{"requests_per_second", 50.5}};
  route["retry_budget"] = json::object();
  const auto r = parse_config(doc_with_route(route)).routes.at(0);
  ASSERT_TRUE(r.rate_limit);
  EXPECT_EQ(r.rate_limit->requests_per_second, 50.5);
  EXPECT_EQ(r.rate_limit->effective_burst(), 50.5);  // one second of requests
  ASSERT_TRUE(r.retry_budget);
  EXPECT_EQ(r.retry_budget->ratio, 0.2);
  EXPECT_EQ(r.retry_budget->window, std::chrono::seconds{10});
  EXPECT_EQ(r.retry_budget->min_per_second, 10);
  validate(parse_config(doc_with_route(route)));
}

TEST(PartnerContract, NamesABadRateLimitOrBudget) {
  auto route = minimal_route();
  route["rate_limit"] = json::object();
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(),
            "routes[0].rate_limit.requests_per_second");
  route["rate_limit"] = {{"requests_per_second", 0}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(),
            "routes[0].rate_limit.requests_per_second");
  route["rate_limit"] = {{"requests_per_second", 10}, {"burst", 0.5}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].rate_limit.burst");
  route.erase("rate_limit");
  route["retry_budget"] = {{"ratio", -1}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].retry_budget.ratio");
  route["retry_budget"] = {{"window", "100ms"}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].retry_budget.window");
}

TEST(PartnerContract, ReadsStaticHeadersInlineFromAFileAndFromTheEnvironment) {
  temp_dir dir;
  const auto key_file = dir.path() / "partner-key";
  std::ofstream{key_file} << "from-the-file\n";
  ::setenv("COURIER_TEST_PARTNER_TOKEN", "from-the-env", 1);
  auto route = minimal_route();
  route["allow_insecure_http"] = true;  // the test's receiver is http://
  route["headers"] = {{"X-Partner", "brew"},
                      {"X-Api-Key", {{"file", key_file.string()}}},
                      {"X-Token", {{"env", "COURIER_TEST_PARTNER_TOKEN"}}}};
  const auto cfg = parse_config(doc_with_route(route));
  validate(cfg);
  std::map<std::string, std::string> got;
  for (const auto& h : cfg.routes.at(0).headers) {
    got[h.name] = h.value;
  }
  EXPECT_EQ(got, (std::map<std::string, std::string>{{"X-Partner", "brew"},
                                                     {"X-Api-Key", "from-the-file"},
                                                     {"X-Token", "from-the-env"}}));
  ::unsetenv("COURIER_TEST_PARTNER_TOKEN");
}

TEST(PartnerContract, RefusesHopByHopAndCouriersOwnHeadersNamingTheKey) {
  for (const std::string name :
       {"Content-Length", "host", "Idempotency-Key", "X-Signature", "webhook-signature",
        "Connection", "Transfer-Encoding", "Content-Type"}) {
    auto route = minimal_route();
    route["headers"] = {{name, "x"}};
    const auto e = validate_error_of(doc_with_route(route));
    EXPECT_EQ(e.key(), "routes[0].headers." + name);
  }
  auto route = minimal_route();
  route["headers"] = {{"Bad Name", "x"}};
  EXPECT_THAT(validate_error_of(doc_with_route(route)).problem(), HasSubstr("not a valid"));
}

TEST(PartnerContract, ErrorsAboutAHeaderNeverQuoteItsValue) {
  auto route = minimal_route();
  route["headers"] = {{"X-Api-Key", "top-secret\r\nX-Evil: 1"}};
  const auto e = validate_error_of(doc_with_route(route));
  EXPECT_EQ(e.key(), "routes[0].headers.X-Api-Key");
  EXPECT_THAT(std::string{e.what()}, Not(HasSubstr("top-secret")));
  route["headers"] = {{"X-Api-Key", {{"env", "COURIER_TEST_NOT_SET_ANYWHERE"}}}};
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].headers.X-Api-Key.env");
  route["headers"] = {{"X-Api-Key", {{"file", "/nonexistent/courier-key"}}}};
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].headers.X-Api-Key.file");
}

TEST(PartnerContract, ReadsAuthAndRefusesBothKindsAtOnce) {
  temp_dir dir;
  const auto secret = dir.path() / "client-secret";
  std::ofstream{secret} << "cs-123\n";
  auto route = minimal_route();
  route["auth"] = {{"oauth2",
                    {{"token_url", "https://auth.example/token"},
                     {"client_id", "courier"},
                     {"client_secret_file", secret.string()},
                     {"scope", "shipments:write"}}}};
  const auto r = parse_config(doc_with_route(route)).routes.at(0);
  ASSERT_TRUE(r.auth.oauth2);
  EXPECT_EQ(r.auth.oauth2->client_secret, "cs-123");
  EXPECT_EQ(r.auth.oauth2->scope, "shipments:write");
  EXPECT_TRUE(r.auth.any());

  route["auth"]["bearer_token_file"] = (dir.path() / "token").string();
  EXPECT_EQ(parse_error_of(doc_with_route(route)).key(), "routes[0].auth.oauth2");

  route["auth"] = {{"bearer_token_file", "/var/run/secrets/token"}};
  route["headers"] = {{"Authorization", "Basic abc"}};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].headers.Authorization");
}

TEST(PartnerContract, NamesAForwardedHeaderThatCannotBeForwarded) {
  auto route = minimal_route();
  route["forward_record_headers"] = {"traceparent", "Authorization"};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].forward_record_headers[1]");
  route["forward_record_headers"] = {"content-length"};
  EXPECT_EQ(validate_error_of(doc_with_route(route)).key(), "routes[0].forward_record_headers[0]");
  route["forward_record_headers"] = json::array();
  validate(parse_config(doc_with_route(route)));
}

TEST(PartnerContract, ReadsTheAdminToken) {
  auto doc = doc_with_route(minimal_route());
  doc["admin"] = {{"token", "adm-1"}};
  EXPECT_EQ(parse_config(doc).admin.token, "adm-1");
}

TEST(PartnerContract, IsDescribedWithDefaultsAndWithoutSecrets) {
  temp_dir dir;
  const auto key_file = dir.path() / "partner-key";
  std::ofstream{key_file} << "the-key-itself\n";
  auto route = minimal_route();
  EXPECT_EQ(
      describe_partner_contract(parse_config(doc_with_route(route)).routes.at(0)),
      (std::vector<std::string>{"rate_limit: none", "retry_budget: none", "headers: none",
                                "auth: none", "forward_record_headers: traceparent, tracestate"}));
  route["rate_limit"] = {{"requests_per_second", 50}};
  route["retry_budget"] = json::object();
  route["headers"] = {{"X-Api-Key", {{"file", key_file.string()}}}, {"X-Partner", "brew"}};
  const auto lines = describe_partner_contract(parse_config(doc_with_route(route)).routes.at(0));
  EXPECT_EQ(lines.at(0), "rate_limit: 50 requests/s, burst 50, shared by the source partitions");
  EXPECT_EQ(lines.at(1), "retry_budget: 0.2 of first attempts + 10/s over 10s");
  EXPECT_EQ(lines.at(2), "header X-Api-Key: file " + key_file.string());
  EXPECT_EQ(lines.at(3), "header X-Partner: inline");
  for (const auto& l : lines) {
    EXPECT_THAT(l, Not(HasSubstr("the-key-itself")));
    EXPECT_THAT(l, Not(HasSubstr("brew")));
  }
}

}  // namespace
}  // namespace courier
