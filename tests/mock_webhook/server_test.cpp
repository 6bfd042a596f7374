#include "mock_webhook/server.hpp"

#include <chrono>
#include <string>
#include <utility>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/delivery/hmac_signer.hpp"
#include "core/delivery/standard_webhooks_signer.hpp"
#include "core/http/client.hpp"
#include "core/http/endpoint.hpp"
#include "core/http/io_runner.hpp"
#include "tests/support/response_waiter.hpp"

namespace courier::mock {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using http::testing::delivery;
using http::testing::post_and_wait;

struct answer {
  int status = 0;
  std::string body;
};

// A plain blocking GET, for the routes the POST-only courier client does not speak.
answer get(const server& srv, const std::string& target) {
  namespace beast_http = boost::beast::http;
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::socket socket(ioc);
  socket.connect({boost::asio::ip::make_address("127.0.0.1"), srv.port()});
  beast_http::request<beast_http::empty_body> req{beast_http::verb::get, target, 11};
  req.set(beast_http::field::host, "127.0.0.1");
  req.keep_alive(false);
  beast_http::write(socket, req);
  boost::beast::flat_buffer buffer;
  beast_http::response<beast_http::string_body> res;
  beast_http::read(socket, buffer, res);
  return {static_cast<int>(res.result_int()), res.body()};
}

// The partner plus a courier client pointed at one of its routes.
class MockWebhook : public ::testing::Test {
 protected:
  void start(server_settings settings = {}) {
    server_ = std::make_unique<server>(std::move(settings));
    server_->start();
    deliver_ = make_client(server_->url());
  }
  std::unique_ptr<http::client> make_client(const std::string& url,
                                            std::chrono::milliseconds timeout = 5s) {
    http::client_settings s;
    s.timeout = timeout;
    s.allow_private_targets = true;  // the server listens on loopback
    return std::make_unique<http::client>(io_.context(), http::parse_endpoint(url), s);
  }
  std::string route(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(server_->port()) + path;
  }
  http::response post_to(const std::string& path, std::string body) {
    auto c = make_client(route(path));
    http::request r;
    r.body = std::move(body);
    return post_and_wait(*c, r);
  }

  http::io_runner io_;
  std::unique_ptr<server> server_;
  std::unique_ptr<http::client> deliver_;

  void TearDown() override {
    deliver_.reset();  // clients before the io threads they run on
  }
};

TEST_F(MockWebhook, CountsTheFirstSuccessAsOkAndARepeatAsDuplicate) {
  start();
  const auto first = post_and_wait(*deliver_, delivery(R"({"n":1})", "orders:0:7"));
  const auto again = post_and_wait(*deliver_, delivery(R"({"n":1})", "orders:0:7"));
  ASSERT_EQ(first.status, 200) << first.error_message;
  ASSERT_EQ(again.status, 200) << again.error_message;
  EXPECT_EQ(again.body, first.body);
  EXPECT_EQ(nlohmann::json::parse(first.body), (nlohmann::json{{"status", "ok"}}));
  const auto s = server_->snapshot();
  EXPECT_EQ(s.total, 2U);
  EXPECT_EQ(s.ok, 1U);
  EXPECT_EQ(s.duplicates, 1U);
  EXPECT_EQ(s.unique_keys, 1U);
  EXPECT_EQ(server_->attempts_by_key().at("orders:0:7"), 2U);
  ASSERT_EQ(server_->arrivals().size(), 1U);
  EXPECT_EQ(server_->arrivals().front().idempotency_key, "orders:0:7");
}

TEST_F(MockWebhook, MissingIdempotencyKeyIsA400) {
  start();
  http::request r;
  r.body = "{}";
  const auto res = post_and_wait(*deliver_, r);
  EXPECT_EQ(res.status, 400);
  EXPECT_THAT(res.body, HasSubstr("Idempotency-Key"));
  EXPECT_EQ(server_->snapshot().total, 1U);
  EXPECT_EQ(server_->snapshot().unique_keys, 0U);
}

TEST_F(MockWebhook, WithASecretAWrongSignatureIs401AndTheRightOne200) {
  server_settings settings;
  settings.hmac_secret = "s3cret";
  start(settings);
  const std::string body = R"({"order":42})";

  auto unsigned_request = delivery(body, "k:0:1");
  EXPECT_EQ(post_and_wait(*deliver_, unsigned_request).status, 401);

  auto wrong = delivery(body, "k:0:1");
  wrong.headers.emplace_back("X-Signature", courier::hmac_signer("other").sign(body));
  EXPECT_EQ(post_and_wait(*deliver_, wrong).status, 401);

  auto right = delivery(body, "k:0:1");
  right.headers.emplace_back("X-Signature", courier::hmac_signer("s3cret").sign(body));
  const auto res = post_and_wait(*deliver_, right);
  EXPECT_EQ(res.status, 200) << res.error_message << res.body;

  const auto s = server_->snapshot();
  EXPECT_EQ(s.fail_401, 2U);
  EXPECT_EQ(s.ok, 1U);
}

TEST_F(MockWebhook, TheSecretRotatesOverHttpAndTheOldSignatureIsThen401) {
  server_settings settings;
  settings.hmac_secret = "old-secret";
  start(settings);
  const std::string body = R"({"order":42})";
  auto signed_with = [&](const std::string& secret, const std::string& key) {
    auto r = delivery(body, key);
    r.headers.emplace_back("X-Signature", courier::hmac_signer(secret).sign(body));
    return r;
  };
  EXPECT_EQ(post_and_wait(*deliver_, signed_with("new-secret", "k:0:1")).status, 401);

  const auto rotated = post_to("/secret", R"({"hmac_secret": "new-secret"})");
  ASSERT_EQ(rotated.status, 200) << rotated.body;
  EXPECT_THAT(rotated.body, ::testing::Not(HasSubstr("new-secret"))) << "never echoed";
  EXPECT_EQ(post_and_wait(*deliver_, signed_with("new-secret", "k:0:1")).status, 200);
  EXPECT_EQ(post_and_wait(*deliver_, signed_with("old-secret", "k:0:2")).status, 401);

  EXPECT_EQ(post_to("/secret", R"({"secret": "x"})").status, 400);
  EXPECT_EQ(post_to("/secret", "not json").status, 400);
  ASSERT_EQ(post_to("/secret", R"({"hmac_secret": null})").status, 200);
  EXPECT_EQ(post_and_wait(*deliver_, delivery(body, "k:0:3")).status, 200)
      << "no secret: signatures are not checked";
}

// Standard Webhooks: a request signed over id.timestamp.body by one of the partner's secrets.
http::request standard_webhooks_delivery(const std::string& body, const std::string& key,
                                         const std::vector<std::string>& secrets,
                                         std::int64_t timestamp) {
  auto r = delivery(body, key);
  r.headers.emplace_back("webhook-id", "msg_" + std::to_string(timestamp));
  r.headers.emplace_back("webhook-timestamp", std::to_string(timestamp));
  r.headers.emplace_back("webhook-signature",
                         courier::standard_webhooks_signer{secrets}.sign(
                             "msg_" + std::to_string(timestamp), timestamp, body));
  return r;
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

const std::string whsec_old = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const std::string whsec_new = "whsec_bmV3LXNlY3JldC1mb3ItdGhlLW1vY2std2ViaG9vaw==";
const std::string whsec_stranger = "whsec_c3RyYW5nZXItc2VjcmV0LW5vdC1rbm93bi1oZXJl";

TEST_F(MockWebhook, ChecksStandardWebhooksSignaturesAndAnswers401ForABadOne) {
  server_settings settings;
  settings.standard_webhooks.secrets = {whsec_old};
  start(settings);
  const std::string body = R"({"order":42})";
  const auto now = unix_now();

  const auto good =
      post_and_wait(*deliver_, standard_webhooks_delivery(body, "k:0:1", {whsec_old}, now));
  EXPECT_EQ(good.status, 200) << good.body;

  EXPECT_EQ(post_and_wait(*deliver_, delivery(body, "k:0:2")).status, 401) << "unsigned";
  auto tampered = standard_webhooks_delivery(body, "k:0:3", {whsec_old}, now);
  tampered.body = R"({"order":43})";
  const auto t = post_and_wait(*deliver_, tampered);
  EXPECT_EQ(t.status, 401);
  EXPECT_THAT(t.body, HasSubstr("no webhook-signature matches"));
  EXPECT_EQ(
      post_and_wait(*deliver_, standard_webhooks_delivery(body, "k:0:4", {whsec_stranger}, now))
          .status,
      401)
      << "a wrong secret";
  EXPECT_EQ(server_->snapshot().fail_401, 3U);
}

TEST_F(MockWebhook, RefusesStandardWebhooksTimestampsMoreThanFiveMinutesAway) {
  server_settings settings;
  settings.standard_webhooks.secrets = {whsec_old};
  start(settings);
  const std::string body = "{}";
  const auto now = unix_now();
  const auto old = post_and_wait(
      *deliver_, standard_webhooks_delivery(body, "k:0:1", {whsec_old}, now - 6 * 60));
  EXPECT_EQ(old.status, 401);
  EXPECT_THAT(old.body, HasSubstr("too old"));
  const auto future = post_and_wait(
      *deliver_, standard_webhooks_delivery(body, "k:0:2", {whsec_old}, now + 6 * 60));
  EXPECT_EQ(future.status, 401);
  EXPECT_THAT(future.body, HasSubstr("too new"));
  EXPECT_EQ(
      post_and_wait(*deliver_, standard_webhooks_delivery(body, "k:0:3", {whsec_old}, now - 4 * 60))
          .status,
      200)
      << "within the tolerance";
}

TEST_F(MockWebhook, DuringARotationAPartnerOnEitherSecretAcceptsTheSameRequest) {
  const std::string body = R"({"order":42})";
  const auto request =
      standard_webhooks_delivery(body, "k:0:1", {whsec_old, whsec_new}, unix_now());
  for (const auto& partner_secrets :
       {std::vector<std::string>{whsec_old}, std::vector<std::string>{whsec_new},
        std::vector<std::string>{whsec_stranger, whsec_new}}) {
    server_settings settings;
    settings.standard_webhooks.secrets = partner_secrets;
    start(settings);
    const auto res = post_and_wait(*deliver_, request);
    EXPECT_EQ(res.status, 200) << partner_secrets.front() << ": " << res.body;
    deliver_.reset();
    server_.reset();
  }
}

TEST_F(MockWebhook, TheStandardWebhooksSecretsRotateOverHttp) {
  server_settings settings;
  settings.standard_webhooks.secrets = {whsec_old};
  start(settings);
  const std::string body = R"({"order":42})";
  const auto now = unix_now();
  const auto rotated =
      post_to("/secret", R"({"standard_webhooks_secrets": [")" + whsec_new + R"("]})");
  ASSERT_EQ(rotated.status, 200) << rotated.body;
  EXPECT_THAT(rotated.body, ::testing::Not(HasSubstr(whsec_new.substr(6)))) << "never echoed";
  EXPECT_EQ(
      post_and_wait(*deliver_, standard_webhooks_delivery(body, "k:0:1", {whsec_old}, now)).status,
      401);
  EXPECT_EQ(
      post_and_wait(*deliver_, standard_webhooks_delivery(body, "k:0:2", {whsec_new}, now)).status,
      200);
  const auto bad = post_to("/secret", R"({"standard_webhooks_secrets": ["whsec_secretvalue*"]})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(bad.body, ::testing::Not(HasSubstr("secretvalue")));
  ASSERT_EQ(post_to("/secret", R"({"standard_webhooks_secrets": null})").status, 200);
  EXPECT_EQ(post_and_wait(*deliver_, delivery(body, "k:0:3")).status, 200)
      << "no secrets: Standard Webhooks signatures are not checked";
}

TEST_F(MockWebhook, RefusesAMalformedStandardWebhooksSecret) {
  server_settings settings;
  settings.standard_webhooks.secrets = {"whsec_not base64"};
  EXPECT_THROW(server{settings}, std::invalid_argument);
}

TEST_F(MockWebhook, ChaosPostedOverHttpTurnsEveryDeliveryInto503UntilCleared) {
  start();
  const auto set =
      post_to("/chaos", R"({"fail_rate_503":1.0,"fail_rate_timeout":0,"latency_ms":0})");
  ASSERT_EQ(set.status, 200) << set.body;
  EXPECT_DOUBLE_EQ(server_->current_chaos().fail_rate_503, 1.0);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(post_and_wait(*deliver_, delivery("{}", "k:" + std::to_string(i))).status, 503);
  }
  EXPECT_EQ(server_->snapshot().fail_503, 5U);

  ASSERT_EQ(post_to("/chaos/clear", "").status, 200);
  EXPECT_EQ(post_and_wait(*deliver_, delivery("{}", "k:0")).status, 200);
}

TEST_F(MockWebhook, GoneChaosAnswers410ToEveryDeliveryUntilCleared) {
  start();
  ASSERT_EQ(post_to("/chaos", R"({"gone":true})").status, 200);
  EXPECT_TRUE(server_->current_chaos().gone);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(post_and_wait(*deliver_, delivery("{}", "k:" + std::to_string(i))).status, 410);
  }
  EXPECT_EQ(server_->snapshot().fail_410, 3U);
  EXPECT_EQ(post_to("/chaos", R"({"gone":1})").status, 400) << "a boolean only";

  ASSERT_EQ(post_to("/chaos/clear", "").status, 200);
  EXPECT_EQ(post_and_wait(*deliver_, delivery("{}", "k:0")).status, 200);
}

TEST_F(MockWebhook, BadChaosIsA400NamingTheField) {
  start();
  const auto out_of_range = post_to("/chaos", R"({"fail_rate_503":1.5})");
  EXPECT_EQ(out_of_range.status, 400);
  EXPECT_THAT(out_of_range.body, HasSubstr("fail_rate_503"));
  const auto not_a_number = post_to("/chaos", R"({"fail_rate_timeout":"often"})");
  EXPECT_EQ(not_a_number.status, 400);
  EXPECT_THAT(not_a_number.body, HasSubstr("fail_rate_timeout"));
  const auto typo = post_to("/chaos", R"({"latency":5})");
  EXPECT_EQ(typo.status, 400);
  EXPECT_THAT(typo.body, HasSubstr("latency"));
  EXPECT_EQ(post_to("/chaos", "{not json").status, 400);
  EXPECT_DOUBLE_EQ(server_->current_chaos().fail_rate_503, 0.0);
}

TEST_F(MockWebhook, OutageWindowAnswers503UntilItHasPassed) {
  start();
  server_->set_outage_until(std::chrono::steady_clock::now() + 1h);
  EXPECT_EQ(post_and_wait(*deliver_, delivery("{}", "k:1")).status, 503);
  server_->set_outage_until(std::chrono::steady_clock::now() - 1ms);
  EXPECT_EQ(post_and_wait(*deliver_, delivery("{}", "k:1")).status, 200);
  EXPECT_EQ(server_->snapshot().fail_503, 1U);
  EXPECT_EQ(server_->snapshot().ok, 1U);
}

TEST_F(MockWebhook, TimeoutChaosHoldsTheRequestUntilTheClientGivesUp) {
  server_settings settings;
  settings.initial.fail_rate_timeout = 1.0;
  settings.hang_for = 60s;  // stop() must not wait for it
  start(settings);
  auto quick = make_client(server_->url(), 200ms);
  const auto res = post_and_wait(*quick, delivery("{}", "k:1"));
  EXPECT_EQ(res.error, transport_error::timeout) << res.error_message;
  EXPECT_EQ(server_->snapshot().fail_timeout, 1U);
  const auto before_stop = std::chrono::steady_clock::now();
  server_->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - before_stop, 5s);
}

TEST_F(MockWebhook, LatencyDelaysEveryAnswer) {
  server_settings settings;
  settings.initial.latency = 100ms;
  start(settings);
  const auto before = std::chrono::steady_clock::now();
  EXPECT_EQ(post_and_wait(*deliver_, delivery("{}", "k:1")).status, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - before, 100ms);
}

TEST_F(MockWebhook, StatsAreServedAsJson) {
  start();
  (void)post_and_wait(*deliver_, delivery("{}", "k:1"));
  (void)post_and_wait(*deliver_, delivery("{}", "k:1"));
  const auto res = get(*server_, "/stats");
  ASSERT_EQ(res.status, 200);
  const auto doc = nlohmann::json::parse(res.body);
  EXPECT_EQ(doc, to_json(server_->snapshot()));
  for (const char* field :
       {"total", "ok", "fail_503", "fail_timeout", "fail_401", "unique_keys", "duplicates"}) {
    EXPECT_TRUE(doc.contains(field)) << field;
  }
  EXPECT_EQ(doc.at("ok"), 1);
  EXPECT_EQ(doc.at("duplicates"), 1);
}

TEST_F(MockWebhook, HealthIsOkAndUnknownPathsAre404) {
  start();
  EXPECT_EQ(get(*server_, "/health").status, 200);
  EXPECT_EQ(get(*server_, "/nowhere").status, 404);
  EXPECT_EQ(post_to("/nowhere", "{}").status, 404);
  EXPECT_EQ(get(*server_, "/deliver").status, 405);
}

TEST_F(MockWebhook, Serves300ConcurrentConnections) {
  server_settings settings;
  settings.initial.latency = 50ms;  // keeps all of them open at once
  start(settings);
  http::client_settings s;
  s.max_connections = 320;
  s.allow_private_targets = true;
  http::client wide(io_.context(), http::parse_endpoint(server_->url()), s);
  http::testing::response_waiter waiter;
  for (int i = 0; i < 300; ++i) {
    wide.post(delivery("{}", "k:" + std::to_string(i)), waiter.callback());
  }
  ASSERT_TRUE(waiter.wait_for(300, 20s));
  for (const auto& r : waiter.responses()) {
    ASSERT_EQ(r.status, 200) << r.error_message;
  }
  EXPECT_EQ(server_->snapshot().ok, 300U);
  EXPECT_EQ(wide.connections_opened(), 300U);
}

TEST_F(MockWebhook, RestartKeepsThePortAndTheCounters) {
  start();
  ASSERT_EQ(post_and_wait(*deliver_, delivery("{}", "k:1")).status, 200);
  const auto port = server_->port();
  server_->stop();
  server_->start();
  EXPECT_EQ(server_->port(), port);
  // The old kept-alive connection died with the server; the client retries transparently.
  EXPECT_EQ(post_and_wait(*deliver_, delivery("{}", "k:2")).status, 200);
  EXPECT_EQ(server_->snapshot().ok, 2U);
}

TEST_F(MockWebhook, RejectsChaosRatesOutsideZeroToOne) {
  EXPECT_THROW(server(server_settings{"127.0.0.1", 0, {}, chaos{-0.1, 0, {}}}),
               std::invalid_argument);
  EXPECT_THROW(validate(chaos{0.7, 0.7, {}}), std::invalid_argument);
  EXPECT_NO_THROW(validate(chaos{0.5, 0.5, 10ms}));
}

}  // namespace
}  // namespace courier::mock
