#pragma once

#include <chrono>
#include <string>

namespace courier::auth {

// What a route sends as its Authorization header, and for how long it holds.
struct credential {
  std::string authorization;  // the whole header value: "Bearer <token>"
  // From the moment it was issued: an OAuth2 token's expires_in; zero for a bearer token file,
  // whose token holds until the file changes.
  std::chrono::seconds lifetime{0};
};

// The header value of a bearer token (RFC 6750 section 2.1).
inline std::string bearer_authorization(const std::string& token) { return "Bearer " + token; }

}  // namespace courier::auth
