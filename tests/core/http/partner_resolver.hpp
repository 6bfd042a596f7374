#pragma once

// A resolver for client_settings::resolver: "partner.example" resolves to the given addresses,
// in that order; any other name to none.

#include <string>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "core/http/client.hpp"

namespace courier::http::testing {

inline decltype(client_settings::resolver) partner_resolving_to(
    std::vector<std::string> addresses) {
  return [addresses = std::move(addresses)](const std::string& host) {
    std::vector<boost::asio::ip::address> out;
    if (host == "partner.example") {
      for (const auto& a : addresses) {
        out.push_back(boost::asio::ip::make_address(a));
      }
    }
    return out;
  };
}

}  // namespace courier::http::testing
