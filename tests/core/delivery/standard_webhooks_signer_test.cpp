#include "core/delivery/standard_webhooks_signer.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/crypto/base64.hpp"

namespace courier {
namespace {

using verdict = standard_webhooks_signer::verdict;

// The specification's published example, as the standardwebhooks libraries' own tests use it.
const std::string spec_secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const std::string spec_id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
constexpr std::int64_t spec_timestamp = 1614265330;
const std::string spec_body = R"({"test": 2432232314})";
const std::string spec_signature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

const std::string other_secret = "whsec_" + base64_encode(std::string(32, 'o'));

TEST(StandardWebhooksSigner, ReproducesTheSpecificationsTestVector) {
  const standard_webhooks_signer signer{{spec_secret}};
  EXPECT_EQ(signer.sign(spec_id, spec_timestamp, spec_body), spec_signature);
}

TEST(StandardWebhooksSigner, VerifiesTheSpecificationsTestVector) {
  const standard_webhooks_signer signer{{spec_secret}};
  EXPECT_EQ(signer.verify(spec_id, "1614265330", spec_signature, spec_body, spec_timestamp),
            verdict::verified);
}

TEST(StandardWebhooksSigner, SignsOncePerSecretInOrderSeparatedBySpaces) {
  const standard_webhooks_signer both{{spec_secret, other_secret}};
  const standard_webhooks_signer other{{other_secret}};
  EXPECT_EQ(both.sign(spec_id, spec_timestamp, spec_body),
            spec_signature + " " + other.sign(spec_id, spec_timestamp, spec_body));
}

TEST(StandardWebhooksSigner, AReceiverWithEitherSecretVerifiesARotationsHeader) {
  const auto header =
      standard_webhooks_signer{{spec_secret, other_secret}}.sign(spec_id, spec_timestamp, "{}");
  EXPECT_EQ(standard_webhooks_signer{{spec_secret}}.verify(spec_id, "1614265330", header, "{}",
                                                           spec_timestamp),
            verdict::verified);
  EXPECT_EQ(standard_webhooks_signer{{other_secret}}.verify(spec_id, "1614265330", header, "{}",
                                                            spec_timestamp),
            verdict::verified);
}

TEST(StandardWebhooksSigner, RefusesATamperedBodyIdOrTimestampAndAWrongSecret) {
  const standard_webhooks_signer signer{{spec_secret}};
  const auto at = spec_timestamp;
  EXPECT_EQ(signer.verify(spec_id, "1614265330", spec_signature, spec_body + " ", at),
            verdict::no_match);
  EXPECT_EQ(signer.verify(spec_id + "x", "1614265330", spec_signature, spec_body, at),
            verdict::no_match);
  EXPECT_EQ(signer.verify(spec_id, "1614265331", spec_signature, spec_body, at), verdict::no_match);
  EXPECT_EQ(standard_webhooks_signer{{other_secret}}.verify(spec_id, "1614265330", spec_signature,
                                                            spec_body, at),
            verdict::no_match);
}

TEST(StandardWebhooksSigner, RefusesTimestampsOutsideFiveMinutesEitherWay) {
  const standard_webhooks_signer signer{{spec_secret}};
  const auto sig = [&](std::int64_t ts) { return signer.sign(spec_id, ts, spec_body); };
  const std::int64_t now = spec_timestamp;
  EXPECT_EQ(signer.verify(spec_id, std::to_string(now - 300), sig(now - 300), spec_body, now),
            verdict::verified);
  EXPECT_EQ(signer.verify(spec_id, std::to_string(now - 301), sig(now - 301), spec_body, now),
            verdict::too_old);
  EXPECT_EQ(signer.verify(spec_id, std::to_string(now + 300), sig(now + 300), spec_body, now),
            verdict::verified);
  EXPECT_EQ(signer.verify(spec_id, std::to_string(now + 301), sig(now + 301), spec_body, now),
            verdict::too_new);
}

TEST(StandardWebhooksSigner, SkipsOtherVersionsAndMalformedEntries) {
  const standard_webhooks_signer signer{{spec_secret}};
  const std::string header =
      "v1a,AAAA v1,!!! v1, v2," + spec_signature.substr(3) + " " + spec_signature;
  EXPECT_EQ(signer.verify(spec_id, "1614265330", header, spec_body, spec_timestamp),
            verdict::verified);
  EXPECT_EQ(signer.verify(spec_id, "1614265330", "v1a,AAAA v1,!!!", spec_body, spec_timestamp),
            verdict::no_match);
}

TEST(StandardWebhooksSigner, RefusesMissingHeadersAndATimestampThatIsNoNumber) {
  const standard_webhooks_signer signer{{spec_secret}};
  EXPECT_EQ(signer.verify("", "1614265330", spec_signature, spec_body, spec_timestamp),
            verdict::missing_headers);
  EXPECT_EQ(signer.verify(spec_id, "", spec_signature, spec_body, spec_timestamp),
            verdict::missing_headers);
  EXPECT_EQ(signer.verify(spec_id, "1614265330", "", spec_body, spec_timestamp),
            verdict::missing_headers);
  EXPECT_EQ(signer.verify(spec_id, "16142653e0", spec_signature, spec_body, spec_timestamp),
            verdict::bad_timestamp);
  EXPECT_EQ(signer.verify(spec_id, "-1614265330", spec_signature, spec_body, spec_timestamp),
            verdict::bad_timestamp);
}

TEST(StandardWebhooksSigner, RefusesNoSecretAndAMalformedOneWithoutQuotingIt) {
  EXPECT_THROW(standard_webhooks_signer{{}}, std::invalid_argument);
  try {
    standard_webhooks_signer{{spec_secret, "whsec_not*base64"}};
    FAIL() << "a malformed secret was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string{e.what()}.find("secret 1"), std::string::npos) << e.what();
    EXPECT_EQ(std::string{e.what()}.find("not*base64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace courier
