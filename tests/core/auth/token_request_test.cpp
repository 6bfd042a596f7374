#include "core/auth/token_request.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/crypto/base64.hpp"

namespace courier::auth {
namespace {

std::string header(const http::request& r, const std::string& name) {
  for (const auto& [n, v] : r.headers) {
    if (n == name) {
      return v;
    }
  }
  return {};
}

oauth2_settings client(std::string id, std::string secret) {
  oauth2_settings c;
  c.token_url = "https://auth.example/token";
  c.client_id = std::move(id);
  c.client_secret = std::move(secret);
  return c;
}

TEST(FormUrlencode, KeepsLettersDigitsAndStarDashDotUnderscoreAndEncodesTheRest) {
  EXPECT_EQ(form_urlencode("aZ09*-._"), "aZ09*-._");
  EXPECT_EQ(form_urlencode("a b&c=d/e+f:g~"), "a+b%26c%3Dd%2Fe%2Bf%3Ag%7E");
  EXPECT_EQ(form_urlencode("\xC3\xA9"), "%C3%A9");
  EXPECT_EQ(form_urlencode(""), "");
}

TEST(BasicClientAuthorization, IsTheExampleOfRfc6749) {
  // RFC 6749 section 2.3.1 and the request of section 4.4.2.
  EXPECT_EQ(basic_client_authorization("s6BhdRkqt3", "7Fjfp0ZBr1KtDRbnfVdmIw"),
            "Basic czZCaGRSa3F0Mzo3RmpmcDBaQnIxS3REUmJuZlZkbUl3");
}

TEST(BasicClientAuthorization, FormEncodesIdAndSecretBeforeJoiningThem) {
  // A colon in the id would otherwise end it early.
  EXPECT_EQ(basic_client_authorization("a:b", "c d"), "Basic " + base64_encode("a%3Ab:c+d"));
}

TEST(ClientCredentialsRequest, AsksForTheGrantAsAFormWithBasicClientAuthentication) {
  const auto r = client_credentials_request(client("courier", "s3cret"));
  EXPECT_EQ(r.body.str(), "grant_type=client_credentials");
  EXPECT_EQ(r.content_type, "application/x-www-form-urlencoded");
  EXPECT_EQ(header(r, "Authorization"), basic_client_authorization("courier", "s3cret"));
  EXPECT_EQ(header(r, "Accept"), "application/json");
}

TEST(ClientCredentialsRequest, SendsScopeAndAudienceOnlyWhenSetFormEncoded) {
  auto c = client("courier", "s3cret");
  c.scope = "deliveries:write read";
  EXPECT_EQ(client_credentials_request(c).body.str(),
            "grant_type=client_credentials&scope=deliveries%3Awrite+read");
  c.audience = "https://partner.example/";
  EXPECT_EQ(client_credentials_request(c).body.str(),
            "grant_type=client_credentials&scope=deliveries%3Awrite+read"
            "&audience=https%3A%2F%2Fpartner.example%2F");
  c.scope.clear();
  EXPECT_EQ(client_credentials_request(c).body.str(),
            "grant_type=client_credentials&audience=https%3A%2F%2Fpartner.example%2F");
}

TEST(ClientCredentialsRequest, KeepsTheSecretOutOfTheBody) {
  const auto r = client_credentials_request(client("courier", "s3cret"));
  EXPECT_EQ(r.body.str().find("s3cret"), std::string::npos);
}

}  // namespace
}  // namespace courier::auth
