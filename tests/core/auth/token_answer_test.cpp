#include "core/auth/token_answer.hpp"

#include <gtest/gtest.h>

#include <string>

namespace courier::auth {
namespace {

constexpr const char* secret = "client-s3cret";

http::response answer(int status, std::string body) {
  http::response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

TEST(TokenAnswer, ABearerTokenWithItsLifetime) {
  const auto a = read_token_answer(
      answer(200, R"({"access_token":"eyJ.abc.def","token_type":"Bearer","expires_in":300})"),
      secret);
  ASSERT_TRUE(a.ok()) << a.problem;
  EXPECT_EQ(a.token->authorization, "Bearer eyJ.abc.def");
  EXPECT_EQ(a.token->lifetime, std::chrono::seconds{300});
  EXPECT_EQ(a.problem, "");
}

TEST(TokenAnswer, TakesTheTokenTypeInAnyCaseAndExpiresInAsAString) {
  const auto a = read_token_answer(
      answer(200, R"({"access_token":"t","token_type":"bearer","expires_in":"60"})"), secret);
  ASSERT_TRUE(a.ok()) << a.problem;
  EXPECT_EQ(a.token->lifetime, std::chrono::seconds{60});
}

TEST(TokenAnswer, WithoutExpiresInTheTokenHoldsTheDefaultLifetime) {
  const auto a =
      read_token_answer(answer(200, R"({"access_token":"t","token_type":"BEARER"})"), secret);
  ASSERT_TRUE(a.ok()) << a.problem;
  EXPECT_EQ(a.token->lifetime, default_token_lifetime);
}

TEST(TokenAnswer, AnRfc6749ErrorAnswerNamesStatusErrorAndDescription) {
  const auto a = read_token_answer(
      answer(401,
             R"({"error":"invalid_client","error_description":"Client authentication failed"})"),
      secret);
  EXPECT_FALSE(a.ok());
  EXPECT_EQ(a.status, 401);
  EXPECT_EQ(a.problem,
            "the token endpoint answered 401: invalid_client (Client authentication failed)");
}

TEST(TokenAnswer, AnErrorWithoutAJsonBodyIsNotQuoted) {
  const auto a = read_token_answer(answer(503, "<html>upstream " + std::string{secret}), secret);
  EXPECT_EQ(a.problem, "the token endpoint answered 503 without an RFC 6749 error");
}

TEST(TokenAnswer, AnEndpointThatEchoesTheSecretDoesNotPutItInTheProblem) {
  const auto a = read_token_answer(
      answer(400, std::string{R"({"error":"invalid_request","error_description":"bad secret )"} +
                      secret + R"("})"),
      secret);
  EXPECT_EQ(a.problem.find(secret), std::string::npos) << a.problem;
  EXPECT_NE(a.problem.find("[redacted]"), std::string::npos) << a.problem;
}

TEST(TokenAnswer, NoAnswerAtAllSaysWhy) {
  http::response r;
  r.error = transport_error::connect;
  r.error_message = "connection refused";
  const auto a = read_token_answer(r, secret);
  EXPECT_FALSE(a.ok());
  EXPECT_EQ(a.status, 0);
  EXPECT_EQ(a.problem, "the token endpoint did not answer: connection refused");
}

TEST(TokenAnswer, RefusesAnswersThatCarryNoUsableBearerTokenWithoutQuotingTheToken) {
  const std::string token = "tok-3f9a";
  for (const std::string& body :
       {std::string{"not json " + token}, std::string{R"(["x"])"},
        std::string{R"({"token_type":"Bearer"})"},
        std::string{R"({"access_token":"","token_type":"Bearer"})"},
        R"({"access_token":")" + token + R"(","token_type":"mac"})",
        R"({"access_token":")" + token + R"("})",
        std::string{R"({"access_token":"a b","token_type":"Bearer"})"},
        R"({"access_token":")" + token + R"(","token_type":"Bearer","expires_in":-1})",
        R"({"access_token":")" + token + R"(","token_type":"Bearer","expires_in":"soon"})"}) {
    const auto a = read_token_answer(answer(200, body), secret);
    EXPECT_FALSE(a.ok()) << body;
    EXPECT_NE(a.problem, "") << body;
    EXPECT_EQ(a.problem.find(token), std::string::npos) << a.problem;
  }
}

TEST(TokenAnswer, ABodyTooLargeToReadIsNoToken) {
  auto r = answer(200, "");
  r.error = transport_error::response_too_large;
  r.error_message = "response larger than 65536 bytes";
  const auto a = read_token_answer(r, secret);
  EXPECT_FALSE(a.ok());
  EXPECT_EQ(a.problem,
            "the token endpoint's answer (200) could not be read: response larger than 65536 "
            "bytes");
}

TEST(TokenAnswer, AnAbsurdLifetimeIsBounded) {
  const auto a = read_token_answer(
      answer(200,
             R"({"access_token":"t","token_type":"Bearer","expires_in":18446744073709551615})"),
      secret);
  ASSERT_TRUE(a.ok()) << a.problem;
  EXPECT_LE(a.token->lifetime, std::chrono::hours{24 * 366});
}

}  // namespace
}  // namespace courier::auth
