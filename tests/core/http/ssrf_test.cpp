// The SSRF guard in the client: a host whose addresses are all reserved is refused before any
// connection, naming the addresses. Names resolve through an injected resolver, so nothing
// leaves loopback and no DNS is asked.

#include <chrono>
#include <string>
#include <vector>

#include <boost/asio/ip/address.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/http/client.hpp"
#include "tests/core/http/partner_resolver.hpp"
#include "core/http/endpoint.hpp"
#include "core/http/io_runner.hpp"
#include "mock_webhook/server.hpp"
#include "tests/support/response_waiter.hpp"

namespace courier::http {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::delivery;
using testing::post_and_wait;

// "partner.example" resolves to `addresses`; nothing else resolves.
client_settings resolving_to(std::vector<std::string> addresses, bool allow_private = false) {
  client_settings s;
  s.timeout = 2s;
  s.allow_private_targets = allow_private;
  s.resolver = testing::partner_resolving_to(std::move(addresses));
  return s;
}

TEST(SsrfGuard, RefusesAHostThatResolvesToAPrivateAddressNamingIt) {
  io_runner io;
  for (const char* address : {"127.0.0.1", "10.0.0.1", "169.254.169.254", "100.64.0.1", "::1",
                              "::ffff:127.0.0.1", "fd00:ec2::254", "192.168.1.10", "0.0.0.0",
                              "64:ff9b::a00:1", "2002:a00:1::1", "fe80::1", "224.0.0.1"}) {
    client c(io.context(), parse_endpoint("http://partner.example:8080/hook"),
             resolving_to({address}));
    const auto r = post_and_wait(c, delivery("{}", "k"));
    EXPECT_EQ(r.error, transport_error::ssrf_blocked) << address << ": " << r.error_message;
    EXPECT_EQ(r.status, 0);
    EXPECT_THAT(r.error_message, HasSubstr(address));
    EXPECT_THAT(r.error_message, HasSubstr("allow private targets"));
    EXPECT_EQ(c.connections_opened(), 0U) << address;
  }
}

TEST(SsrfGuard, RefusesAnIpLiteralInAReservedRange) {
  io_runner io;
  for (const char* url : {"http://127.0.0.1:1/hook", "http://[::1]:1/hook",
                          "http://[::ffff:127.0.0.1]:1/hook", "https://169.254.169.254/latest"}) {
    client_settings s;
    s.timeout = 2s;
    client c(io.context(), parse_endpoint(url), s);
    const auto r = post_and_wait(c, delivery("{}", "k"));
    EXPECT_EQ(r.error, transport_error::ssrf_blocked) << url << ": " << r.error_message;
  }
}

TEST(SsrfGuard, ConnectsOnlyToTheAddressesThatPassed) {
  // The private address comes first; a client that dialled it would reach the mock below.
  mock::server partner{mock::server_settings{}};
  partner.start();
  io_runner io;
  client c(io.context(),
           parse_endpoint("http://partner.example:" + std::to_string(partner.port()) + "/deliver"),
           resolving_to({"127.0.0.1", "192.0.2.1"}));
  // 192.0.2.1 is documentation space: refused as well, so nothing at all is dialled.
  const auto blocked = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(blocked.error, transport_error::ssrf_blocked) << blocked.error_message;
  EXPECT_THAT(blocked.error_message, HasSubstr("127.0.0.1 (loopback), 192.0.2.1 (documentation)"));
  EXPECT_EQ(partner.snapshot().total, 0U);
}

TEST(SsrfGuard, AllowsPrivateTargetsWhenTheRouteAllowsThem) {
  mock::server partner{mock::server_settings{}};
  partner.start();
  io_runner io;
  client c(io.context(),
           parse_endpoint("http://partner.example:" + std::to_string(partner.port()) + "/deliver"),
           resolving_to({"127.0.0.1"}, /*allow_private=*/true));
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.status, 200) << r.error_message;
  EXPECT_EQ(partner.snapshot().ok, 1U);
}

TEST(SsrfGuard, ANameThatDoesNotResolveIsADnsFailure) {
  io_runner io;
  client c(io.context(), parse_endpoint("http://elsewhere.example/hook"), resolving_to({}));
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::dns) << r.error_message;
}

}  // namespace
}  // namespace courier::http
