#pragma once

// Internal to courier::config: the rules of a route's partner contract (validate() calls them),
// and the header names a route may not set, which the request builder relies on.

#include <optional>
#include <string>
#include <string_view>

#include "core/config/config.hpp"

namespace courier::config_detail {

bool equals_ignoring_case(std::string_view a, std::string_view b);

// RFC 9110 section 5.6.2: a field name is a token.
bool is_token(std::string_view s);

// Why a route may not set header `name` (hop-by-hop, or one courier sets on every request);
// nothing when it may.
std::optional<std::string_view> reserved_header(std::string_view name);

// A static header value as a forwarded one must be to be sent: visible ASCII, space and tab.
bool is_plain_header_value(std::string_view v);

// The rules of route `r` at `path` ("routes[0]") that span fields: headers against auth and
// each other, forward_record_headers against both, and credentials over http:// (refused unless
// allow_insecure_http); throws config_error naming the key. Values of headers are never quoted.
void validate_partner_contract(const route_config& r, const std::string& path);

}  // namespace courier::config_detail
