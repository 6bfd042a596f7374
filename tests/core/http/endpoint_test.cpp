#include "core/http/endpoint.hpp"

#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace courier::http {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::string& url) {
  try {
    (void)parse_endpoint(url);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Endpoint, SplitsSchemeHostPortAndTarget) {
  const auto ep = parse_endpoint("http://127.0.0.1:8090/deliver?x=1");
  EXPECT_EQ(ep.scheme, "http");
  EXPECT_EQ(ep.host, "127.0.0.1");
  EXPECT_EQ(ep.port, 8090);
  EXPECT_EQ(ep.target, "/deliver?x=1");
}

TEST(Endpoint, DefaultsPortBySchemeAndTargetToSlash) {
  EXPECT_EQ(parse_endpoint("http://partner.example").port, 80);
  EXPECT_EQ(parse_endpoint("http://partner.example").target, "/");
  EXPECT_EQ(parse_endpoint("https://partner.example/hook").port, 443);
  EXPECT_EQ(parse_endpoint("http://partner.example?a=b").target, "/?a=b");
}

TEST(Endpoint, LowercasesSchemeAndHost) {
  const auto ep = parse_endpoint("HTTP://Partner.Example:81/Path");
  EXPECT_EQ(ep.scheme, "http");
  EXPECT_EQ(ep.host, "partner.example");
  EXPECT_EQ(ep.target, "/Path");
}

TEST(Endpoint, KeepsIpv6LiteralWithoutBrackets) {
  const auto ep = parse_endpoint("http://[::1]:9000/x");
  EXPECT_EQ(ep.host, "::1");
  EXPECT_EQ(ep.port, 9000);
  EXPECT_EQ(host_header(ep), "[::1]:9000");
}

TEST(Endpoint, HostHeaderOmitsTheDefaultPort) {
  EXPECT_EQ(host_header(parse_endpoint("http://a.example/x")), "a.example");
  EXPECT_EQ(host_header(parse_endpoint("http://a.example:8080/x")), "a.example:8080");
  EXPECT_EQ(to_string(parse_endpoint("http://a.example:8080/x")), "http://a.example:8080/x");
}

TEST(Endpoint, RejectionsNameWhatIsWrong) {
  EXPECT_THAT(error_of("127.0.0.1:8090/deliver"), HasSubstr("missing scheme"));
  EXPECT_THAT(error_of("ftp://a.example/"), HasSubstr("unsupported scheme 'ftp'"));
  EXPECT_THAT(error_of("http:///deliver"), HasSubstr("missing host"));
  EXPECT_THAT(error_of("http://a.example:0/"), HasSubstr("out of range"));
  EXPECT_THAT(error_of("http://a.example:70000/"), HasSubstr("out of range"));
  EXPECT_THAT(error_of("http://a.example:80x/"), HasSubstr("port '80x' is not a number"));
  EXPECT_THAT(error_of("http://a.example:/"), HasSubstr("empty port"));
  EXPECT_THAT(error_of("http://user:pw@a.example/"), HasSubstr("credentials"));
  EXPECT_THAT(error_of("http://a.example/x#frag"), HasSubstr("fragment"));
  EXPECT_THAT(error_of("http://a.example/a b"), HasSubstr("whitespace"));
  EXPECT_THAT(error_of("http://[::1/"), HasSubstr("IPv6"));
  EXPECT_THAT(error_of("ftp://a.example/"), HasSubstr("ftp://a.example/"));
}

}  // namespace
}  // namespace courier::http
