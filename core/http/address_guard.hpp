#pragma once

#include <optional>
#include <string_view>

#include <boost/asio/ip/address.hpp>

namespace courier::http {

// The SSRF guard's classifier: whether an address a webhook host resolved to belongs to a range
// that is not the public internet (our own machine, our network, the cloud's metadata service,
// or a translation prefix that leads back into one of those). Pure: no resolution, no I/O.
//
// Returns the name of the reserved range the address falls in ("loopback", "rfc1918",
// "link-local", ...), or nothing for a public address. IPv4-mapped IPv6 addresses
// (::ffff:a.b.c.d) are unmapped and judged as the IPv4 address; NAT64 (64:ff9b::/96) and
// 6to4 (2002::/16) are refused as a whole, since they can embed any IPv4 address.
std::optional<std::string_view> reserved_range(const boost::asio::ip::address& a);

}  // namespace courier::http
