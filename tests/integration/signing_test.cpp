// Standard Webhooks signing through the whole pipeline (mock cluster, the actors, the HTTP
// client) against mock_webhook's verifier; the independent verifier is the npm package
// (standardwebhooks_interop_test.cpp).

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/integration/stand.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

const std::string whsec_old = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const std::string whsec_new = "whsec_bmV3LXNlY3JldC1mb3ItdGhlLW1vY2std2ViaG9vaw==";

// A receiver that checks Standard Webhooks signatures with `secrets`.
mock::server_settings receiver_on(std::vector<std::string> secrets) {
  mock::server_settings ws;
  ws.standard_webhooks.secrets = std::move(secrets);
  return ws;
}

// The route signs with Standard Webhooks and `secrets`, X-Signature included (the stand's
// receiver checks that too).
void sign_with(stand& s, std::vector<std::string> secrets) {
  s.route().signing.schemes = {signing_scheme::x_signature, signing_scheme::standard_webhooks};
  s.route().signing.secrets = std::move(secrets);
}

void deliver_all(stand& s, std::size_t n) {
  s.seed(n);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= n; }, 60s))
      << "delivered: " << s.receiver->snapshot().ok
      << ", refused: " << s.receiver->snapshot().fail_401;
  p.stop();
  EXPECT_EQ(s.receiver->snapshot().ok, n);
  EXPECT_EQ(s.receiver->snapshot().fail_401, 0U) << "every signature verified";
}

TEST(Signing, EveryStandardWebhooksDeliveryVerifiesAtTheReceiver) {
  stand s{2, receiver_on({whsec_old})};
  sign_with(s, {whsec_old});
  deliver_all(s, 100);
}

TEST(Signing, DuringARotationAReceiverOnTheNewSecretVerifiesEveryDelivery) {
  stand s{2, receiver_on({whsec_new})};
  sign_with(s, {whsec_old, whsec_new});
  deliver_all(s, 50);
}

TEST(Signing, AReceiverOnAnotherSecretRefusesAndTheRecordsAreHeldNotLost) {
  stand s{2, receiver_on({whsec_new})};
  sign_with(s, {whsec_old});
  s.seed(5);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().fail_401 >= 5; }, 30s));
  p.stop();
  EXPECT_EQ(s.receiver->snapshot().ok, 0U);
  EXPECT_EQ(s.committed_total(), 0) << "a 401 holds the record: nothing is committed";
}

}  // namespace
}  // namespace courier::testing
