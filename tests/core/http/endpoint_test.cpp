#include "core/http/endpoint.hpp"

#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace courier::http {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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
  EXPECT_THAT(error_of("ftp://a.example/"), HasSubstr("'ftp://a.example'"));
}

TEST(Endpoint, RejectionsNeverQuoteThePathQueryOrCredentials) {
  const std::string error = error_of("ftp://user:pw@hooks.example/services/T0/B0/SECRET?k=KEY");
  EXPECT_THAT(error, HasSubstr("ftp://hooks.example"));
  EXPECT_THAT(error, Not(HasSubstr("SECRET")));
  EXPECT_THAT(error, Not(HasSubstr("KEY")));
  EXPECT_THAT(error, Not(HasSubstr("pw")));
}

TEST(EndpointDisplay, ShowsSchemeHostAndPortOnly) {
  EXPECT_EQ(to_string(parse_endpoint("https://hooks.example/services/T0/B0/SECRET")),
            "https://hooks.example:443");
  EXPECT_EQ(to_string(parse_endpoint("http://a.example:8080/x?token=abc")),
            "http://a.example:8080");
  EXPECT_EQ(to_string(parse_endpoint("http://[::1]:9000/x")), "http://[::1]:9000");
}

TEST(EndpointDisplay, ShowsAConfiguredUrlWithoutItsPathOrQuery) {
  EXPECT_EQ(display_url("https://hooks.example/services/T0/B0/SECRET"),
            "https://hooks.example:443");
  EXPECT_EQ(display_url("HTTP://Partner.Example?key=SECRET"), "http://partner.example:80");
}

TEST(EndpointDisplay, ShowsAnUnparsableUrlByWhatPrecedesItsPath) {
  EXPECT_EQ(display_url("ftp://files.example/SECRET"), "ftp://files.example");
  EXPECT_EQ(display_url("https://user:SECRET@hooks.example/x"), "https://hooks.example");
  EXPECT_EQ(display_url("https://hooks.example/a b/SECRET"), "https://hooks.example");
  EXPECT_EQ(display_url("hooks.example/SECRET"), "(not an http(s) URL)");
}

}  // namespace
}  // namespace courier::http
