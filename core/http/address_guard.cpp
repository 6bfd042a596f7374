#include "core/http/address_guard.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

namespace courier::http {
namespace {

namespace ip = boost::asio::ip;

struct v4_range {
  std::uint32_t network;
  int prefix;
  std::string_view name;
};

constexpr std::uint32_t v4(unsigned a, unsigned b, unsigned c, unsigned d) {
  return (a << 24U) | (b << 16U) | (c << 8U) | d;
}

// IANA's special-purpose registry, the parts that are not reachable public unicast.
constexpr std::array<v4_range, 15> v4_reserved{{
    {v4(0, 0, 0, 0), 8, "this-network"},         // 0/8
    {v4(10, 0, 0, 0), 8, "rfc1918"},             // 10/8
    {v4(100, 64, 0, 0), 10, "cgnat"},            // 100.64/10
    {v4(127, 0, 0, 0), 8, "loopback"},           // 127/8
    {v4(169, 254, 0, 0), 16, "link-local"},      // 169.254/16, the metadata service
    {v4(172, 16, 0, 0), 12, "rfc1918"},          // 172.16/12
    {v4(192, 0, 0, 0), 24, "ietf-protocol"},     // 192.0.0/24
    {v4(192, 0, 2, 0), 24, "documentation"},     // TEST-NET-1
    {v4(192, 88, 99, 0), 24, "6to4-relay"},      // 192.88.99/24
    {v4(192, 168, 0, 0), 16, "rfc1918"},         // 192.168/16
    {v4(198, 18, 0, 0), 15, "benchmarking"},     // 198.18/15
    {v4(198, 51, 100, 0), 24, "documentation"},  // TEST-NET-2
    {v4(203, 0, 113, 0), 24, "documentation"},   // TEST-NET-3
    {v4(224, 0, 0, 0), 4, "multicast"},          // 224/4
    {v4(240, 0, 0, 0), 4, "reserved"},           // 240/4, broadcast included
}};

// Distinct by role: an address, its network and the prefix, as in RFC tables.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
bool in_v4(std::uint32_t addr, std::uint32_t network, int prefix) {
  const std::uint32_t mask = prefix == 0 ? 0U : ~std::uint32_t{0} << (32 - prefix);
  return (addr & mask) == (network & mask);
}

std::optional<std::string_view> reserved_v4(const ip::address_v4& a) {
  const std::uint32_t addr = a.to_uint();
  if (addr == v4(255, 255, 255, 255)) {
    return "broadcast";
  }
  for (const auto& r : v4_reserved) {
    if (in_v4(addr, r.network, r.prefix)) {
      return r.name;
    }
  }
  return std::nullopt;
}

struct v6_range {
  std::array<std::uint8_t, 16> network;
  int prefix;
  std::string_view name;
};

bool in_v6(const ip::address_v6::bytes_type& addr, const std::array<std::uint8_t, 16>& network,
           int prefix) {
  for (int bit = 0; bit < prefix; bit += 8) {
    const auto i = static_cast<std::size_t>(bit / 8);
    const int bits = prefix - bit >= 8 ? 8 : prefix - bit;
    const auto mask = static_cast<std::uint8_t>(0xFFU << (8 - bits));
    if ((addr[i] & mask) != (network[i] & mask)) {
      return false;
    }
  }
  return true;
}

// NAT64's well-known prefix (RFC 6052): 64:ff9b::/96, the IPv4 address in the last 32 bits.
constexpr std::array<std::uint8_t, 16> nat64_well_known{0x00, 0x64, 0xff, 0x9b};

// Mapped and NAT64 well-known-prefix addresses are judged by their IPv4 address before this
// table is consulted.
const std::array<v6_range, 8> v6_reserved{{
    {{}, 128, "unspecified"},                                             // ::
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 128, "loopback"},  // ::1
    {{}, 96, "ipv4-compatible"},                                          // ::/96
    {{0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48, "nat64"},  // 64:ff9b:1::/48, local use
    {{0x20, 0x02}, 16, "6to4"},                           // 2002::/16
    {{0xfc}, 7, "unique-local"},                          // fc00::/7
    {{0xfe, 0x80}, 10, "link-local"},                     // fe80::/10
    {{0xff}, 8, "multicast"},                             // ff00::/8
}};

std::optional<std::string_view> reserved_v6(const ip::address_v6& a) {
  if (a.is_v4_mapped()) {
    return reserved_v4(ip::make_address_v4(ip::v4_mapped, a));
  }
  const auto bytes = a.to_bytes();
  if (in_v6(bytes, nat64_well_known, 96)) {
    // On an IPv6-only host behind DNS64 every IPv4-only partner resolves here; the gateway
    // connects to the IPv4 address it carries, so that address is the one to judge (RFC 6052
    // forbids the prefix for non-global addresses, but a hostile DNS answer need not care).
    return reserved_v4(ip::address_v4{(std::uint32_t{bytes[12]} << 24U) |
                                      (std::uint32_t{bytes[13]} << 16U) |
                                      (std::uint32_t{bytes[14]} << 8U) | bytes[15]});
  }
  for (const auto& r : v6_reserved) {
    if (in_v6(bytes, r.network, r.prefix)) {
      return r.name;
    }
  }
  // fec0::/10, deprecated site-local, still routed inside some networks.
  if (bytes[0] == 0xfe && (bytes[1] & 0xc0U) == 0xc0U) {
    return "site-local";
  }
  // 2001:db8::/32, documentation.
  if (bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0d && bytes[3] == 0xb8) {
    return "documentation";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string_view> reserved_range(const ip::address& a) {
  if (a.is_v4()) {
    return reserved_v4(a.to_v4());
  }
  return reserved_v6(a.to_v6());
}

}  // namespace courier::http
