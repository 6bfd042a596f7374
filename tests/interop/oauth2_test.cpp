// routes[].auth against a real authorization server: oauth2-mock-server (npm) issues courier's
// tokens by the client-credentials grant, and a node receiver verifies each delivery's bearer JWT
// against the server's JWKS with jose (tests/interop/oauth2/stand.js). `courier run` runs as
// operators start it. The fixture interop.oauth2.npm_ci installs the pinned packages first.

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/auth/token_answer.hpp"
#include "core/auth/token_request.hpp"
#include "core/http/client.hpp"
#include "core/http/endpoint.hpp"
#include "core/http/io_runner.hpp"
#include "tests/integration/stand.hpp"
#include "tests/support/log_lines.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/courier_json.hpp"
#include "tests/support/courier_process.hpp"
#include "tests/support/response_waiter.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/wait_until.hpp"

namespace courier::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::string client_id = "courier";
// Characters that RFC 6749's form-encoding of the Basic credentials must carry.
const std::string client_secret = "s3cr3t:with/slash+plus and space";

// One request the receiver judged.
struct delivery {
  std::string key;  // Idempotency-Key
  std::string jti;  // of the token it carried; "-" when none verified
  int status = 0;
  std::string reason;
};

// tests/interop/oauth2/stand.js under node: the token endpoint and the receiver.
class oauth2_stand {
 public:
  oauth2_stand(const fs::path& dir, int token_lifetime_s)
      : tokens_file_(dir / "issued-tokens"),
        process_(NODE_BINARY, {OAUTH2_STAND_DIR "/stand.js"},
                 {"CLIENT_ID=" + client_id, "CLIENT_SECRET=" + client_secret,
                  "TOKEN_LIFETIME_S=" + std::to_string(token_lifetime_s),
                  "TOKENS_FILE=" + tokens_file_.string()},
                 (dir / "stand.log").string()) {
    wait_until([&] { return !lines("listening ").empty() || !process_.running(); }, 20s);
    const auto listening = lines("listening ");
    if (listening.empty()) {
      throw std::runtime_error("the oauth2 stand did not start:\n" + process_.log());
    }
    std::istringstream ports{listening.front()};
    ports >> token_port_ >> receiver_port_;
  }

  std::string token_url() const {
    return "http://127.0.0.1:" + std::to_string(token_port_) + "/token";
  }
  std::string receiver_url() const {
    return "http://127.0.0.1:" + std::to_string(receiver_port_) + "/deliver";
  }

  // The rest of every log line that starts with `prefix`.
  std::vector<std::string> lines(const std::string& prefix) const {
    return courier::testing::lines_after(process_.log(), prefix);
  }
  std::vector<delivery> deliveries() const {
    std::vector<delivery> out;
    for (const auto& l : lines("delivery ")) {
      std::istringstream in{l};
      delivery d;
      in >> d.key >> d.jti >> d.status >> d.reason;
      out.push_back(d);
    }
    return out;
  }
  std::size_t accepted() const {
    std::size_t n = 0;
    for (const auto& d : deliveries()) {
      n += d.status == 200 ? 1 : 0;
    }
    return n;
  }
  std::size_t tokens_issued() const { return lines("token-issued ").size(); }
  // Every access token the server issued, as it issued them.
  std::vector<std::string> issued_tokens() const {
    std::vector<std::string> out;
    std::ifstream in{tokens_file_};
    for (std::string t; std::getline(in, t);) {
      out.push_back(t);
    }
    return out;
  }
  std::string log() const { return process_.log(); }

  // The receiver refuses the token of the next delivery it would have accepted, from then on.
  void revoke_next() const {
    http::io_runner io;
    http::client_settings cs;
    cs.allow_private_targets = true;
    http::client c{io.context(),
                   http::parse_endpoint("http://127.0.0.1:" + std::to_string(receiver_port_) +
                                        "/control/revoke-next"),
                   cs};
    if (http::testing::post_and_wait(c, http::request{}).status != 204) {
      throw std::runtime_error("the receiver did not take revoke-next");
    }
  }

  // A token straight from the token endpoint, as courier's request asks for it.
  std::string fetch_token() const {
    http::io_runner io;
    http::client_settings cs;
    cs.allow_private_targets = true;
    http::client c{io.context(), http::parse_endpoint(token_url()), cs};
    oauth2_config o;
    o.client_id = client_id;
    o.client_secret = client_secret;
    const auto a = auth::read_token_answer(
        http::testing::post_and_wait(c, auth::client_credentials_request(o)), client_secret);
    if (!a.ok()) {
      throw std::runtime_error("no token: " + a.problem);
    }
    return a.token->authorization.substr(std::string{"Bearer "}.size());
  }

 private:
  fs::path tokens_file_;
  child_process process_;
  int token_port_ = 0;
  int receiver_port_ = 0;
};

// The stand's route, delivering to the node receiver, with `auth` as its routes[0].auth.
fs::path write_auth_config(stand& s, const std::string& url, const nlohmann::json& auth,
                           const fs::path& dir) {
  s.route().url = url;
  s.route().allow_insecure_http = true;  // the stand's token endpoint and receiver are http://
  courier_config cfg = s.cfg;
  cfg.kafka.properties["fetch.wait.max.ms"] = "10";
  auto j = config_json(cfg);
  j["routes"][0]["auth"] = auth;
  const auto path = dir / "courier.json";
  std::ofstream{path} << j.dump(2);
  return path;
}

nlohmann::json oauth2_auth(const std::string& token_url, const fs::path& secret_file) {
  return {{"oauth2",
           {{"token_url", token_url},
            {"client_id", client_id},
            {"client_secret_file", secret_file.string()}}}};
}

fs::path write_secret(const fs::path& dir, const std::string& secret) {
  const auto path = dir / "client-secret";
  std::ofstream{path} << secret << "\n";
  return path;
}

courier_process run_courier(const fs::path& config, const fs::path& dir) {
  return courier_process{{"run", "--config", config.string(), "--log-format", "json"},
                         {"HMAC_SECRET=" + test_secret()},
                         (dir / "courier.log").string()};
}

// Nothing secret in courier's log: neither the client secret nor any token the server issued.
void expect_no_secret_in(const std::string& log, const oauth2_stand& auth) {
  EXPECT_EQ(log.find(client_secret), std::string::npos) << "the client secret leaked";
  EXPECT_EQ(log.find("s3cr3t"), std::string::npos) << "a part of the client secret leaked";
  for (const auto& token : auth.issued_tokens()) {
    EXPECT_EQ(log.find(token), std::string::npos) << "an access token leaked";
    // A JWT's signature part alone is as good as a leak.
    EXPECT_EQ(log.find(token.substr(token.rfind('.') + 1)), std::string::npos)
        << "an access token's signature leaked";
  }
}

TEST(OAuth2Interop, EveryRecordIsDeliveredOnceWithAValidTokenCachedAndRefreshedBeforeExpiry) {
  constexpr std::size_t waves = 8;
  constexpr std::size_t per_wave = 25;
  constexpr std::size_t n = waves * per_wave;
  const temp_dir scratch{"oauth2-run", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  const oauth2_stand auth{dir, /*token_lifetime_s=*/5};
  stand s{2};
  const auto config = write_auth_config(
      s, auth.receiver_url(), oauth2_auth(auth.token_url(), write_secret(dir, client_secret)), dir);
  auto courier = run_courier(config, dir);

  // A wave of records under every other token: the run spans several token lifetimes, and each
  // new wave waits for the refresh (a condition), not for a fixed time.
  for (std::size_t w = 0; w < waves; ++w) {
    const auto tokens_before = auth.tokens_issued();
    s.seed(per_wave);
    ASSERT_TRUE(wait_until([&] { return auth.accepted() >= (w + 1) * per_wave; }, 30s))
        << "wave " << w << ": accepted " << auth.accepted() << "\n"
        << courier.log() << auth.log();
    if (w % 2 == 1) {
      ASSERT_TRUE(wait_until([&] { return auth.tokens_issued() > tokens_before; }, 30s))
          << "wave " << w << ": no refresh before expiry\n"
          << courier.log() << auth.log();
    }
  }
  courier.signal(SIGTERM);
  ASSERT_EQ(courier.wait_exit(30s), std::optional<int>{0}) << courier.log();

  std::map<std::string, std::size_t> accepted_per_key;
  std::size_t refused = 0;
  for (const auto& d : auth.deliveries()) {
    if (d.status == 200) {
      ++accepted_per_key[d.key];
      EXPECT_NE(d.jti, "-");
    } else {
      ++refused;
    }
  }
  EXPECT_EQ(accepted_per_key.size(), n) << "every record delivered";
  for (const auto& [key, times] : accepted_per_key) {
    EXPECT_EQ(times, 1U) << key << " delivered more than once";
  }
  EXPECT_EQ(refused, 0U) << "no delivery without a valid token, none with an expired one:\n"
                         << auth.log();
  EXPECT_EQ(s.committed_total(), static_cast<long long>(n));
  // 12 s of 5 s tokens, each refreshed at 2.5 s: about six. Cached: far fewer than deliveries.
  EXPECT_GE(auth.tokens_issued(), 3U) << "refreshed before expiry:\n" << auth.log();
  EXPECT_LE(auth.tokens_issued(), 12U) << "cached, not fetched per delivery:\n" << auth.log();
  EXPECT_NE(courier.log().find("token fetched"), std::string::npos) << courier.log();
  expect_no_secret_in(courier.log(), auth);
}

TEST(OAuth2Interop, ATokenTheReceiverRevokesIsRefreshedOnceAndTheRecordDelivered) {
  const temp_dir scratch{"oauth2-revoke", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  const oauth2_stand auth{dir, /*token_lifetime_s=*/600};
  stand s{1};
  const auto config = write_auth_config(
      s, auth.receiver_url(), oauth2_auth(auth.token_url(), write_secret(dir, client_secret)), dir);
  auto courier = run_courier(config, dir);
  s.seed(5);
  ASSERT_TRUE(wait_until([&] { return auth.accepted() >= 5; }, 30s)) << courier.log() << auth.log();
  ASSERT_EQ(auth.tokens_issued(), 1U) << auth.log();

  auth.revoke_next();
  s.seed(1);
  ASSERT_TRUE(wait_until([&] { return auth.accepted() >= 6; }, 30s)) << courier.log() << auth.log();
  courier.signal(SIGTERM);
  ASSERT_EQ(courier.wait_exit(30s), std::optional<int>{0}) << courier.log();

  const auto all = auth.deliveries();
  std::vector<delivery> refused;
  for (const auto& d : all) {
    if (d.status != 200) {
      refused.push_back(d);
    }
  }
  ASSERT_EQ(refused.size(), 1U) << "one 401, then the refreshed token:\n" << auth.log();
  EXPECT_EQ(refused[0].reason, "revoked");
  EXPECT_EQ(auth.tokens_issued(), 2U) << "exactly one refresh for the 401:\n" << auth.log();
  const auto& last = all.back();
  EXPECT_EQ(last.key, refused[0].key) << "the refused record, delivered";
  EXPECT_EQ(last.status, 200);
  EXPECT_NE(last.jti, refused[0].jti) << "with the new token";
  EXPECT_EQ(s.committed_total(), 6);
  expect_no_secret_in(courier.log(), auth);
}

TEST(OAuth2Interop, ATokenEndpointThatRefusesTheClientAtStartUpEndsCourierWithExitTwo) {
  const temp_dir scratch{"oauth2-refused", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  const oauth2_stand auth{dir, /*token_lifetime_s=*/600};
  stand s{1};
  const std::string wrong = "wr0ng-client-secret";
  const auto config = write_auth_config(
      s, auth.receiver_url(), oauth2_auth(auth.token_url(), write_secret(dir, wrong)), dir);
  s.seed(3);
  auto courier = run_courier(config, dir);
  ASSERT_EQ(courier.wait_exit(30s), std::optional<int>{2}) << courier.log();
  const auto log = courier.log();
  EXPECT_NE(log.find("routes[0].auth.oauth2.token_url: the token endpoint answered 401: "
                     "invalid_client (client authentication failed)"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find(wrong), std::string::npos) << "the secret leaked: " << log;
  EXPECT_EQ(auth.lines("token-refused ").size(), 1U) << auth.log();
  EXPECT_TRUE(auth.deliveries().empty()) << "nothing delivered without a token";
}

TEST(OAuth2Interop, AnUnreachableTokenEndpointAtStartUpEndsCourierWithExitTwo) {
  const temp_dir scratch{"oauth2-unreachable", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  stand s{1};
  const std::string closed = "http://127.0.0.1:1/token";  // nothing listens on port 1
  const auto config = write_auth_config(s, s.route().url,
                                        oauth2_auth(closed, write_secret(dir, client_secret)), dir);
  auto courier = run_courier(config, dir);
  ASSERT_EQ(courier.wait_exit(30s), std::optional<int>{2}) << courier.log();
  EXPECT_NE(
      courier.log().find("routes[0].auth.oauth2.token_url: the token endpoint did not answer"),
      std::string::npos)
      << courier.log();
}

TEST(BearerTokenFileInterop, ARotatedFileIsPickedUpWithoutARestart) {
  const temp_dir scratch{"bearer-rotation", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  const oauth2_stand auth{dir, /*token_lifetime_s=*/600};
  const std::string first = auth.fetch_token();
  const std::string second = auth.fetch_token();
  const auto token_file = dir / "token";
  // As Kubernetes' atomic writer updates a projected token: a new file renamed over the old.
  const auto rotate_to = [&](const std::string& token) {
    std::ofstream{dir / "token.next"} << token << "\n";
    fs::rename(dir / "token.next", token_file);
  };
  rotate_to(first);
  stand s{1};
  const auto config =
      write_auth_config(s, auth.receiver_url(), {{"bearer_token_file", token_file.string()}}, dir);
  auto courier = run_courier(config, dir);
  s.seed(10);
  ASSERT_TRUE(wait_until([&] { return auth.accepted() >= 10; }, 30s))
      << courier.log() << auth.log();
  const auto jti_of_first = auth.deliveries().front().jti;

  rotate_to(second);
  ASSERT_TRUE(wait_until(
      [&] { return courier.log().find("bearer token file changed") != std::string::npos; }, 10s))
      << courier.log();
  s.seed(10);
  ASSERT_TRUE(wait_until([&] { return auth.accepted() >= 20; }, 30s))
      << courier.log() << auth.log();
  EXPECT_TRUE(courier.running()) << "no restart";
  courier.signal(SIGTERM);
  ASSERT_EQ(courier.wait_exit(30s), std::optional<int>{0}) << courier.log();

  const auto all = auth.deliveries();
  ASSERT_EQ(all.size(), 20U) << auth.log();
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].status, 200) << all[i].key;
    if (i < 10) {
      EXPECT_EQ(all[i].jti, jti_of_first) << "before the rotation";
    } else {
      EXPECT_NE(all[i].jti, jti_of_first) << "after the rotation: the new token";
    }
  }
  expect_no_secret_in(courier.log(), auth);
}

TEST(BearerTokenFileInterop, AMissingFileAtStartUpEndsCourierWithExitTwo) {
  const temp_dir scratch{"bearer-missing", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  stand s{1};
  const auto absent = dir / "no-token-here";
  const auto config =
      write_auth_config(s, s.route().url, {{"bearer_token_file", absent.string()}}, dir);
  auto courier = run_courier(config, dir);
  ASSERT_EQ(courier.wait_exit(30s), std::optional<int>{2}) << courier.log();
  EXPECT_NE(courier.log().find("routes[0].auth.bearer_token_file: " + absent.string() +
                               ": No such file or directory"),
            std::string::npos)
      << courier.log();
}

}  // namespace
}  // namespace courier::testing
