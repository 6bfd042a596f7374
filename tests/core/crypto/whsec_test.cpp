#include "core/crypto/whsec.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/crypto/base64.hpp"

namespace courier {
namespace {

TEST(Whsec, TheKeyIsTheDecodedPartAfterThePrefix) {
  const auto parsed = parse_whsec("whsec_" + base64_encode(std::string(24, 'k')));
  EXPECT_EQ(parsed.problem, "");
  EXPECT_EQ(parsed.key, std::string(24, 'k'));
}

TEST(Whsec, TheSpecificationsExampleSecretIsATwentyFourByteKey) {
  EXPECT_EQ(parse_whsec("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").key.size(), 24U);
}

TEST(Whsec, RefusesAMissingPrefixBadBase64AndKeysOfTheWrongSizeWithoutQuotingTheSecret) {
  const std::string body = base64_encode(std::string(32, 'k'));
  for (const std::string& bad :
       {body, "whsec" + body, "WHSEC_" + body, "whsec_" + body.substr(1), "whsec_" + body + " ",
        "whsec_" + base64_encode(std::string(23, 'k')),
        "whsec_" + base64_encode(std::string(65, 'k')), std::string{"whsec_"}}) {
    const auto parsed = parse_whsec(bad);
    EXPECT_NE(parsed.problem, "") << bad;
    EXPECT_EQ(parsed.key, "") << bad;
    EXPECT_EQ(parsed.problem.find(body.substr(4, 8)), std::string::npos) << parsed.problem;
  }
}

}  // namespace
}  // namespace courier
