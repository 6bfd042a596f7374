// The official standardwebhooks npm library (an implementation that is not ours) verifies what
// courier signs: every delivery of a run, both receivers of a rotation, and it refuses a tampered
// body, a wrong secret and a stale timestamp. The fixture interop.standardwebhooks.npm_ci
// installs the pinned package first (tests/interop/CMakeLists.txt).

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/delivery/delivery_request.hpp"
#include "core/http/client.hpp"
#include "core/http/endpoint.hpp"
#include "core/http/io_runner.hpp"
#include "core/model/idempotency_key.hpp"
#include "tests/integration/stand.hpp"
#include "tests/support/log_lines.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/courier_json.hpp"
#include "tests/support/courier_process.hpp"
#include "tests/support/response_waiter.hpp"
#include "tests/support/temp_dir.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

const std::string whsec_old = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const std::string whsec_new = "whsec_bmV3LXNlY3JldC1mb3ItdGhlLW1vY2std2ViaG9vaw==";

// tests/interop/standardwebhooks/receiver.js under node, knowing one secret.
class node_receiver {
 public:
  node_receiver(const std::string& secret, const std::filesystem::path& log)
      : process_(NODE_BINARY, {STANDARDWEBHOOKS_DIR "/receiver.js"}, {"WEBHOOK_SECRET=" + secret},
                 log.string()) {
    wait_until([&] { return !lines("listening ").empty() || !process_.running(); }, 20s);
    const auto listening = lines("listening ");
    if (listening.empty()) {
      throw std::runtime_error("the node receiver did not start:\n" + process_.log());
    }
    port_ = std::stoi(listening.front());
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/deliver"; }
  // The rest of every log line that starts with `prefix`.
  std::vector<std::string> lines(const std::string& prefix) const {
    return courier::testing::lines_after(process_.log(), prefix);
  }
  std::size_t verified() const { return lines("verified ").size(); }
  std::size_t refused() const { return lines("refused ").size(); }
  std::string log() const { return process_.log(); }

 private:
  child_process process_;
  int port_ = 0;
};

// The route signs with Standard Webhooks only.
void sign_with_standard_webhooks(stand& s, std::vector<std::string> secrets) {
  s.route().signing.schemes = {signing_scheme::standard_webhooks};
  s.route().signing.secrets = std::move(secrets);
}

TEST(StandardWebhooksInterop, TheLibraryVerifiesEveryDeliveryOfACourierRun) {
  constexpr std::size_t n = 200;
  const temp_dir scratch{"interop-run", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  const node_receiver receiver{whsec_old, dir / "receiver.log"};
  stand s{2};
  s.route().url = receiver.url();
  sign_with_standard_webhooks(s, {});
  s.seed(n);

  // `courier run` as operators start it: the scheme in the file, the secret in a file named by
  // the environment.
  courier_config cfg = s.cfg;
  cfg.kafka.properties["fetch.wait.max.ms"] = "10";
  const auto config = write_config(cfg, dir);
  std::ofstream{dir / "whsec"} << whsec_old << "\n";
  courier_process courier{{"run", "--config", config.string()},
                          {"STANDARD_WEBHOOKS_SECRETS_FILE=" + (dir / "whsec").string()},
                          (dir / "courier.log").string()};
  ASSERT_TRUE(wait_until([&] { return receiver.verified() >= n; }, 90s))
      << "verified: " << receiver.verified() << ", refused: " << receiver.refused() << "\n"
      << courier.log() << receiver.log();
  courier.signal(SIGTERM);
  ASSERT_TRUE(courier.wait_exit(30s).has_value()) << courier.log();

  EXPECT_EQ(receiver.refused(), 0U) << receiver.log();
  const auto ids = receiver.lines("verified ");
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), n) << "one webhook-id per record";
  EXPECT_EQ(s.committed_total(), static_cast<long long>(n));
  EXPECT_EQ(courier.log().find(whsec_old.substr(6)), std::string::npos)
      << "the secret leaked into the log";
}

TEST(StandardWebhooksInterop, DuringARotationReceiversOnTheOldAndOnTheNewSecretBothVerifyAll) {
  constexpr std::size_t n = 60;
  const temp_dir scratch{"interop-rotation", temp_dir::keep_if_failed};
  for (const auto& known : {whsec_old, whsec_new}) {
    const node_receiver receiver{known,
                                 scratch.path() / ("receiver-" + known.substr(6, 4) + ".log")};
    stand s{2};
    s.route().url = receiver.url();
    sign_with_standard_webhooks(s, {whsec_old, whsec_new});
    s.seed(n);
    caf::actor_system sys{s.sys_cfg};
    topology::pipeline p{sys, s.cfg, {}};
    EXPECT_TRUE(wait_until([&] { return receiver.verified() >= n; }, 60s))
        << known << " verified " << receiver.verified() << "\n"
        << receiver.log();
    p.stop();
    EXPECT_EQ(receiver.verified(), n) << known;
    EXPECT_EQ(receiver.refused(), 0U) << receiver.log();
  }
}

// One request as courier builds it, sent straight to the node receiver.
class TheStandardwebhooksLibrary : public ::testing::Test {
 protected:
  void SetUp() override {
    receiver_ = std::make_unique<node_receiver>(whsec_old, scratch_.path() / "receiver.log");
    http::client_settings cs;
    cs.timeout = 5s;
    cs.allow_private_targets = true;  // the receiver is on loopback
    client_ =
        std::make_unique<http::client>(io_.context(), http::parse_endpoint(receiver_->url()), cs);
  }
  void TearDown() override { client_.reset(); }

  int post(const std::string& secret, const std::string& body, std::int64_t timestamp,
           const std::string& sent_body) {
    signing_settings s;
    s.x_signature = false;
    s.standard_webhooks_secrets = {secret};
    record r;
    r.topic = "brew.shipments.v1";
    r.offset = 7;
    r.value = body;
    auto req = make_delivery_request(r, idempotency_key_for(r), request_signing{s},
                                     "application/json", timestamp);
    req.body = sent_body;
    return http::testing::post_and_wait(*client_, std::move(req)).status;
  }

  static std::int64_t now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  temp_dir scratch_{"interop-crafted", temp_dir::keep_if_failed};
  http::io_runner io_;
  std::unique_ptr<node_receiver> receiver_;
  std::unique_ptr<http::client> client_;
};

TEST_F(TheStandardwebhooksLibrary, RefusesATamperedBodyAWrongSecretAndAStaleTimestamp) {
  const std::string body = R"({"shipment_id":"shp-1"})";
  EXPECT_EQ(post(whsec_old, body, now(), body), 200) << receiver_->log();
  EXPECT_EQ(post(whsec_old, body, now(), R"({"shipment_id":"shp-2"})"), 401) << "tampered body";
  EXPECT_EQ(post(whsec_new, body, now(), body), 401) << "wrong secret";
  EXPECT_EQ(post(whsec_old, body, now() - 10 * 60, body), 401) << "ten minutes old";
  EXPECT_EQ(post(whsec_old, body, now() + 10 * 60, body), 401) << "ten minutes ahead";
  ASSERT_TRUE(wait_until([&] { return receiver_->refused() >= 4; }, 5s)) << receiver_->log();
  const auto reasons = receiver_->lines("refused ");
  EXPECT_EQ(reasons[0], "No matching signature found");
  EXPECT_EQ(reasons[1], "No matching signature found");
  EXPECT_EQ(reasons[2], "Message timestamp too old");
  EXPECT_EQ(reasons[3], "Message timestamp too new");
}

}  // namespace
}  // namespace courier::testing
