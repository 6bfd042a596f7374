#include "core/delivery/secret_redactor.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace courier {
namespace {

TEST(SecretRedactor, ReplacesEveryOccurrenceOfEverySecret) {
  const secret_redactor r{{"api-key-123", "hmac-secret"}};
  EXPECT_EQ(r.redact("X-Api-Key: api-key-123; again api-key-123, sig hmac-secret"),
            "X-Api-Key: [redacted]; again [redacted], sig [redacted]");
}

TEST(SecretRedactor, LeavesTextWithoutSecretsAsItIs) {
  const secret_redactor r{{"api-key-123"}};
  EXPECT_FALSE(r.finds_any("{\"error\":\"bad request\"}"));
  EXPECT_EQ(r.redact("{\"error\":\"bad request\"}"), "{\"error\":\"bad request\"}");
}

TEST(SecretRedactor, ReplacesASecretHoldingAnotherWhole) {
  const secret_redactor r{{"abcd", "xxabcdxx"}};
  EXPECT_EQ(r.redact("got xxabcdxx and abcd"), "got [redacted] and [redacted]");
}

TEST(SecretRedactor, DropsEmptyShortAndRepeatedSecrets) {
  const secret_redactor r{{"", "1", "abc", "token-1", "token-1"}};
  EXPECT_EQ(r.size(), 1U);
  EXPECT_EQ(r.redact("v1 abc token-1"), "v1 abc [redacted]");
}

TEST(SecretRedactor, RedactsTheValuesOfOneTextGivenWithIt) {
  const secret_redactor r{{"static-key"}};
  const std::string sent = "Bearer eyJ.current.token";
  const auto also = authorization_secrets(sent);
  const std::string echoed =
      "{\"headers\":{\"authorization\":\"Bearer eyJ.current.token\",\"x\":\"static-key\"},"
      "\"token\":\"eyJ.current.token\"}";
  EXPECT_TRUE(r.finds_any(echoed, also));
  EXPECT_FALSE(r.finds_any("eyJ.current.token"));
  EXPECT_EQ(r.redact(echoed, also),
            "{\"headers\":{\"authorization\":\"[redacted]\",\"x\":\"[redacted]\"},"
            "\"token\":\"[redacted]\"}");
}

TEST(SecretRedactor, AnAuthorizationGivesItsValueAndItsCredential) {
  EXPECT_EQ(authorization_secrets("Bearer abc.def"),
            (std::vector<std::string_view>{"Bearer abc.def", "abc.def"}));
  EXPECT_EQ(authorization_secrets("Basic dXNlcjpwdw=="),
            (std::vector<std::string_view>{"Basic dXNlcjpwdw==", "dXNlcjpwdw=="}));
  EXPECT_TRUE(authorization_secrets("").empty());
}

}  // namespace
}  // namespace courier
