// Secrets are never printed (issue 12): known secrets, given through every channel courier takes
// them from (environment variables, files named by the environment, *_file keys, the config file
// itself), appear neither in a config error, nor in --help, nor in the log or /state of a run.

#include <fstream>
#include <future>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/retry/retry_headers.hpp"
#include "demo/topic_reader.hpp"
#include "tests/core/http/scripted_server.hpp"
#include "tests/integration/stand.hpp"
#include "tests/support/courier_json.hpp"
#include "tests/support/courier_process.hpp"
#include "tests/support/http_get.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/log_lines.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

// Recognisable, and each one's base64 part is what a leak would show.
const std::string hmac_known = "hmac-known-secret-7f3a9c";
const std::string whsec_known = "whsec_a25vd24tc3RhbmRhcmQtd2ViaG9va3Mtc2VjcmV0";  // 30 bytes
const std::string whsec_known_body = whsec_known.substr(6);
const std::string whsec_malformed_body = "bWFsZm9ybWVkLWtub3duLXNlY3JldA*";

void expect_no_secret(const std::string& text, const std::string& where) {
  for (const auto& s : {hmac_known, whsec_known_body, whsec_malformed_body}) {
    EXPECT_EQ(text.find(s), std::string::npos) << where << " shows a secret:\n" << text;
  }
}

std::string run_to_exit(const std::vector<std::string>& args, const std::vector<std::string>& env,
                        const std::filesystem::path& log, int expected_code) {
  courier_process courier{args, env, log.string()};
  const auto code = courier.wait_exit(20s);
  EXPECT_TRUE(code.has_value()) << courier.log();
  EXPECT_EQ(code.value_or(-1), expected_code) << courier.log();
  return courier.log();
}

const char* const standard_webhooks_route = R"({"routes": [{"name": "shipments",
  "topic": "brew.shipments.v1", "url": "http://127.0.0.1:8090/deliver",
  "signing": {"scheme": ["x-signature", "standard-webhooks"]}}]})";

TEST(Secrets, AMalformedSecretIsNamedByItsKeyAndNeverPrinted) {
  const temp_dir scratch{"secrets-config-error", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  std::ofstream{dir / "courier.json"} << standard_webhooks_route;
  const auto config = (dir / "courier.json").string();

  // From the environment.
  auto log = run_to_exit({"run", "--config", config},
                         {"HMAC_SECRET=" + hmac_known, "STANDARD_WEBHOOKS_SECRETS=" + whsec_known +
                                                           " whsec_" + whsec_malformed_body},
                         dir / "env.log", 2);
  EXPECT_NE(log.find("routes[0].signing.secrets[1]"), std::string::npos) << log;
  expect_no_secret(log, "a config error (environment)");

  // From the file itself, the HMAC secret from a file named by the environment.
  std::ofstream{dir / "hmac"} << hmac_known << "\n";
  std::ofstream{dir / "inline.json"} << R"({"routes": [{"name": "shipments",
    "topic": "brew.shipments.v1", "url": "http://127.0.0.1:8090/deliver",
    "signing": {"scheme": "standard-webhooks", "secrets": ["whsec_)"
                                     << whsec_malformed_body << R"("]}}]})";
  log = run_to_exit({"run", "--config", (dir / "inline.json").string()},
                    {"HMAC_SECRET_FILE=" + (dir / "hmac").string()}, dir / "inline.log", 2);
  EXPECT_NE(log.find("routes[0].signing.secrets[0]"), std::string::npos) << log;
  expect_no_secret(log, "a config error (config file)");

  // Another key is wrong: the good secrets around it stay unprinted too.
  std::ofstream{dir / "other.json"} << R"({"routes": [{"name": "shipments",
    "topic": "brew.shipments.v1", "url": "http://127.0.0.1:8090/deliver",
    "hmac_secret_file": ")" << (dir / "hmac").string()
                                    << R"(", "breaker": {"trip_after": -3}}]})";
  log = run_to_exit({"run", "--config", (dir / "other.json").string()},
                    {"STANDARD_WEBHOOKS_SECRETS=" + whsec_known}, dir / "other.log", 2);
  EXPECT_NE(log.find("routes[0].breaker.trip_after"), std::string::npos) << log;
  expect_no_secret(log, "a config error (another key)");
}

TEST(Secrets, HelpShowsNoSecretFromTheEnvironment) {
  const temp_dir scratch{"secrets-help", temp_dir::keep_if_failed};
  const std::vector<std::string> env = {"HMAC_SECRET=" + hmac_known,
                                        "STANDARD_WEBHOOKS_SECRETS=" + whsec_known};
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--help"}, {"run", "--help"}, {"demo", "--help"}, {"topics", "ensure", "--help"}}) {
    const auto log = run_to_exit(args, env, scratch.path() / (args.front() + ".log"), 0);
    EXPECT_NE(log.find("--"), std::string::npos) << "help was printed: " << log;
    expect_no_secret(log, args.front() + " --help");
  }
}

TEST(Secrets, ARunningCourierShowsNoSecretInItsLogStateOrMetrics) {
  mock::server_settings ws;
  ws.standard_webhooks.secrets = {whsec_known};
  stand s{1, ws};
  s.route().signing.schemes = {signing_scheme::x_signature, signing_scheme::standard_webhooks};
  s.receiver->set_secret(hmac_known);
  s.seed(20);
  const temp_dir scratch{"secrets-run", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  courier_config cfg = s.cfg;
  cfg.kafka.properties["fetch.wait.max.ms"] = "10";
  const auto config = write_config(cfg, dir);
  std::ofstream{dir / "whsec"} << whsec_known << "\n";
  courier_process courier{
      {"run", "--config", config.string()},
      {"HMAC_SECRET=" + hmac_known, "STANDARD_WEBHOOKS_SECRETS_FILE=" + (dir / "whsec").string()},
      (dir / "courier.log").string()};
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 20; }, 60s))
      << "delivered: " << s.receiver->snapshot().ok << "\n"
      << courier.log();
  const auto port = admin_port(courier.log());
  ASSERT_TRUE(port.has_value()) << courier.log();
  for (const auto* target : {"/state", "/metrics", "/healthz", "/readyz"}) {
    const auto page = http_get(*port, target);
    EXPECT_EQ(page.status, 200) << target << page.body;
    expect_no_secret(page.body, target);
  }
  courier.signal(SIGTERM);
  ASSERT_TRUE(courier.wait_exit(30s).has_value()) << courier.log();
  EXPECT_NE(courier.log().find("\"signing\":[\"x-signature\",\"standard-webhooks\"]"),
            std::string::npos)
      << "the log says how the route signs\n"
      << courier.log();
  expect_no_secret(courier.log(), "the log");
}

// The issue's check: every log line and /state of a full demo run, with the secrets from the
// environment (the demo's receiver checks both schemes with them, so the run only succeeds when
// courier signed with exactly these).
TEST(Secrets, AFullDemoRunShowsNoSecretInAnyLogLineOrInState) {
  const temp_dir scratch{"secrets-demo", temp_dir::keep_if_failed};
  courier_process demo{{"demo", "--records", "300", "--fail-rate-503", "0.2", "--no-progress",
                        "--admin-listen", "127.0.0.1:0"},
                       {"HMAC_SECRET=" + hmac_known, "STANDARD_WEBHOOKS_SECRETS=" + whsec_known},
                       (scratch.path() / "demo.log").string()};
  std::vector<std::string> states;
  // Between checks of "has it finished", read /state whenever the listener answers.
  wait_until([&] { return !demo.running(); }, 120s,
             [&] {
               if (const auto port = admin_port(demo.log())) {
                 try {
                   const auto page = http_get(*port, "/state");
                   if (page.status == 200) {
                     states.push_back(page.body);
                   }
                 } catch (const std::exception&) {
                   // Not serving yet, or already stopped.
                 }
               }
               demo.wait_exit(100ms);  // the step's wait: until the demo ends, 100 ms at most
             });
  const auto code = demo.wait_exit(1s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 0) << demo.log();
  EXPECT_NE(demo.log().find("OK: every seeded record was delivered or is in the DLQ, once"),
            std::string::npos)
      << demo.log();
  ASSERT_FALSE(states.empty()) << "no /state was read during the run\n" << demo.log();
  for (const auto& state : states) {
    expect_no_secret(state, "/state");
  }
  expect_no_secret(demo.log(), "the demo's log");
}

// -- secrets in the url and in the partner's answers (issue 48) -------------------------------

// A loopback port nothing listens on: connecting to it is refused at once.
std::uint16_t refused_port() {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor a{
      ioc, boost::asio::ip::tcp::endpoint{boost::asio::ip::make_address("127.0.0.1"), 0}};
  return a.local_endpoint().port();  // closed when `a` goes
}

// Every record of `topic` (the `expected` ones, or what arrives within the deadline). The
// deadline is generous: on the mock cluster each rebalance round takes a session timeout, and a
// record reaches the DLQ only after its route's tier consumers joined (three rounds, 15 s).
std::vector<record> records_of(const stand& s, const std::string& topic, std::size_t expected) {
  return demo::read_topic(s.cfg.kafka.brokers, topic, expected, 60s, fast_group());
}

TEST(Secrets, AUrlsSecretPathIsInNoLogLineStateOrTierAndDlqHeaderWhileThePartnerIsDown) {
  const std::string path_secret = "B0PATHSECRET9f2c";
  const std::string query_secret = "QUERYSECRET41d7";
  stand s{1};
  s.route().url = "http://127.0.0.1:" + std::to_string(refused_port()) + "/services/T0/" +
                  path_secret + "?token=" + query_secret;
  s.route().retry.max_attempts = 1;
  s.seed(3);
  const temp_dir scratch{"secrets-url", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  courier_config cfg = s.cfg;
  cfg.kafka.properties["fetch.wait.max.ms"] = "10";
  auto j = config_json(cfg);
  j["routes"][0]["breaker"] = {{"trip_after", 1000}};  // every record goes through the tiers
  const auto config = dir / "courier.json";
  std::ofstream{config} << j.dump(2);
  courier_process courier{{"run", "--config", config.string(), "--log-format", "json"},
                          {"HMAC_SECRET=" + test_secret()},
                          (dir / "courier.log").string()};
  // The tiers and the DLQ read at once: each reader joins a group of its own.
  std::vector<std::future<std::vector<record>>> tier_reads;
  for (const auto& tier : topics_of(s.route()).tiers) {
    tier_reads.push_back(std::async(std::launch::async,
                                    [&s, topic = tier.topic] { return records_of(s, topic, 3); }));
  }
  const auto dlq = records_of(s, s.dlq, 3);
  ASSERT_EQ(dlq.size(), 3U) << courier.log();
  const auto port = admin_port(courier.log());
  ASSERT_TRUE(port.has_value()) << courier.log();
  const auto state = http_get(*port, "/state");
  courier.signal(SIGTERM);
  ASSERT_TRUE(courier.wait_exit(30s).has_value()) << courier.log();

  std::vector<record> stored = dlq;
  for (auto& read : tier_reads) {
    const auto copies = read.get();
    EXPECT_EQ(copies.size(), 3U);
    stored.insert(stored.end(), copies.begin(), copies.end());
  }
  for (const auto& r : stored) {
    EXPECT_EQ(find_header(r.headers, error_class_header).value_or(""), "connect") << r.topic;
    for (const auto& [name, value] : r.headers) {
      for (const auto& secret : {path_secret, query_secret}) {
        EXPECT_EQ(value.find(secret), std::string::npos) << r.topic << " " << name << ": " << value;
      }
    }
  }
  const auto message = find_header(dlq.front().headers, error_message_header).value_or("");
  EXPECT_NE(message.find("http://127.0.0.1:"), std::string::npos) << message;
  for (const auto& secret : {path_secret, query_secret}) {
    EXPECT_EQ(courier.log().find(secret), std::string::npos) << courier.log();
    EXPECT_EQ(state.body.find(secret), std::string::npos) << state.body;
  }
  EXPECT_NE(courier.log().find("\"url\":\"http://127.0.0.1:"), std::string::npos)
      << "the route-started line shows the url as scheme://host:port\n"
      << courier.log();
}

TEST(Secrets, APartnerEchoingAuthorizationLeavesNoTokenInTheDlq) {
  const std::string token = "eyJ0b2tlbi1lY2hvZWQtYnktdGhlLWdhdGV3YXk";
  const std::string api_key = "api-key-echoed-5e81";
  // The partner's gateway refuses the request and echoes its headers in the body.
  http::testing::scripted_server partner{
      1, [](boost::asio::ip::tcp::socket& socket) {
        using scripted = http::testing::scripted_server;
        for (auto req = scripted::read_request(socket); !req.target().empty();
             req = scripted::read_request(socket)) {
          std::string echo = "refused; you sent:";
          for (const auto& field : req) {
            echo +=
                " " + std::string{field.name_string()} + ": " + std::string{field.value()} + ";";
          }
          scripted::write_raw(socket,
                              "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n"
                              "Content-Length: " +
                                  std::to_string(echo.size()) + "\r\n\r\n" + echo);
        }
      }};
  stand s{1};
  s.route().url = partner.url("/deliver");
  s.route().allow_insecure_http = true;
  s.seed(1);
  const temp_dir scratch{"secrets-echo", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  std::ofstream{dir / "token"} << token << " \n";
  std::ofstream{dir / "api-key"} << api_key << "\n";
  courier_config cfg = s.cfg;
  cfg.kafka.properties["fetch.wait.max.ms"] = "10";
  auto j = config_json(cfg);
  j["routes"][0]["auth"] = {{"bearer_token_file", (dir / "token").string()}};
  j["routes"][0]["headers"] = {{"X-Api-Key", {{"file", (dir / "api-key").string()}}}};
  j["routes"][0]["http"]["max_connections"] = 1;  // the scripted partner serves one connection
  std::ofstream{dir / "courier.json"} << j.dump(2);
  courier_process courier{
      {"run", "--config", (dir / "courier.json").string(), "--log-format", "json"},
      {"HMAC_SECRET=" + test_secret()},
      (dir / "courier.log").string()};
  const auto dlq = records_of(s, s.dlq, 1);
  courier.signal(SIGTERM);
  ASSERT_TRUE(courier.wait_exit(30s).has_value()) << courier.log();
  ASSERT_EQ(dlq.size(), 1U) << courier.log();
  const auto response = find_header(dlq.front().headers, error_response_header).value_or("");
  EXPECT_NE(response.find("Authorization: [redacted];"), std::string::npos)
      << "the token file's \"token \\n\" was sent as the token alone, and echoed: " << response;
  EXPECT_NE(response.find("X-Api-Key: [redacted];"), std::string::npos) << response;
  for (const auto& [name, value] : dlq.front().headers) {
    EXPECT_EQ(value.find(token), std::string::npos) << name << ": " << value;
    EXPECT_EQ(value.find(api_key), std::string::npos) << name << ": " << value;
  }
  EXPECT_EQ(courier.log().find(token), std::string::npos) << courier.log();
}

}  // namespace
}  // namespace courier::testing
