#include "core/http/address_guard.hpp"

#include <string>

#include <gtest/gtest.h>

namespace courier::http {
namespace {

std::string range_of(const std::string& text) {
  const auto r = reserved_range(boost::asio::ip::make_address(text));
  return r ? std::string{*r} : std::string{"public"};
}

struct row {
  const char* address;
  const char* range;
};

TEST(AddressGuard, RefusesEveryReservedRangeAndOnlyThose) {
  const row table[] = {
      // IPv4: each reserved block at its first, an inner and its last address.
      {"0.0.0.0", "this-network"},
      {"0.255.255.255", "this-network"},
      {"1.0.0.0", "public"},
      {"9.255.255.255", "public"},
      {"10.0.0.0", "rfc1918"},
      {"10.0.0.1", "rfc1918"},
      {"10.255.255.255", "rfc1918"},
      {"11.0.0.0", "public"},
      {"100.63.255.255", "public"},
      {"100.64.0.0", "cgnat"},
      {"100.64.0.1", "cgnat"},
      {"100.127.255.255", "cgnat"},
      {"100.128.0.0", "public"},
      {"126.255.255.255", "public"},
      {"127.0.0.1", "loopback"},
      {"127.255.255.254", "loopback"},
      {"128.0.0.0", "public"},
      {"169.253.255.255", "public"},
      {"169.254.0.0", "link-local"},
      {"169.254.169.254", "link-local"},
      {"169.254.255.255", "link-local"},
      {"169.255.0.0", "public"},
      {"172.15.255.255", "public"},
      {"172.16.0.0", "rfc1918"},
      {"172.31.255.255", "rfc1918"},
      {"172.32.0.0", "public"},
      {"192.0.0.1", "ietf-protocol"},
      {"192.0.2.1", "documentation"},
      {"192.88.99.1", "6to4-relay"},
      {"192.167.255.255", "public"},
      {"192.168.0.0", "rfc1918"},
      {"192.168.255.255", "rfc1918"},
      {"192.169.0.0", "public"},
      {"198.17.255.255", "public"},
      {"198.18.0.0", "benchmarking"},
      {"198.19.255.255", "benchmarking"},
      {"198.20.0.0", "public"},
      {"198.51.100.7", "documentation"},
      {"203.0.113.9", "documentation"},
      {"223.255.255.255", "public"},
      {"224.0.0.1", "multicast"},
      {"239.255.255.255", "multicast"},
      {"240.0.0.0", "reserved"},
      {"254.255.255.255", "reserved"},
      {"255.255.255.255", "broadcast"},
      {"8.8.8.8", "public"},
      {"93.184.216.34", "public"},
      // IPv6.
      {"::", "unspecified"},
      {"::1", "loopback"},
      {"::2", "ipv4-compatible"},
      {"::127.0.0.1", "ipv4-compatible"},
      {"::ffff:127.0.0.1", "loopback"},
      {"::ffff:10.0.0.1", "rfc1918"},
      {"::ffff:169.254.169.254", "link-local"},
      {"::ffff:8.8.8.8", "public"},
      // NAT64's well-known prefix: judged by the IPv4 address it carries (DNS64 on an
      // IPv6-only host synthesizes it for every IPv4-only partner).
      {"64:ff9b::", "this-network"},
      {"64:ff9b::7f00:1", "loopback"},
      {"64:ff9b::a9fe:a9fe", "link-local"},
      {"64:ff9b::a00:1", "rfc1918"},
      {"64:ff9b::808:808", "public"},
      {"64:ff9b::5db8:d822", "public"},
      {"64:ff9b:1::1", "nat64"},
      {"64:ff9c::1", "public"},
      {"2002::", "6to4"},
      {"2002:7f00:1::", "6to4"},
      {"2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "6to4"},
      {"2003::1", "public"},
      {"2001:db8::1", "documentation"},
      {"fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "public"},
      {"fc00::", "unique-local"},
      {"fd00:ec2::254", "unique-local"},
      {"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "unique-local"},
      {"fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "public"},
      {"fe80::", "link-local"},
      {"fe80::1", "link-local"},
      {"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "link-local"},
      {"fec0::1", "site-local"},
      {"ff02::1", "multicast"},
      {"ff0e::1", "multicast"},
      {"2001:4860:4860::8888", "public"},
      {"2606:4700::1111", "public"},
  };
  for (const auto& r : table) {
    EXPECT_EQ(range_of(r.address), r.range) << r.address;
  }
}

TEST(AddressGuard, JudgesAMappedAddressAsTheIpv4AddressItCarries) {
  for (const char* v4 : {"127.0.0.1", "10.1.2.3", "100.64.0.1", "192.168.1.1", "0.0.0.1",
                         "224.0.0.5", "240.0.0.1", "198.18.0.1", "8.8.4.4", "1.1.1.1"}) {
    EXPECT_EQ(range_of(std::string{"::ffff:"} + v4), range_of(v4)) << v4;
  }
}

TEST(AddressGuard, CoversEveryAddressOfTheIpv4ReservedBlocksAtEachOctetBoundary) {
  // Every /8 once: only the reserved ones are refused.
  int refused = 0;
  for (unsigned first = 0; first < 256; ++first) {
    const std::string a = std::to_string(first) + ".1.2.3";
    if (range_of(a) != "public") {
      ++refused;
    }
  }
  // 0, 10, 127 and 224..255 (32 of them).
  EXPECT_EQ(refused, 35);
}

}  // namespace
}  // namespace courier::http
