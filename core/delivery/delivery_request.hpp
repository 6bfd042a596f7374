#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/delivery/hmac_signer.hpp"
#include "core/delivery/standard_webhooks_signer.hpp"
#include "core/http/client.hpp"
#include "core/model/idempotency_key.hpp"
#include "core/model/record.hpp"

namespace courier {

// How a route signs its requests: which schemes, with which secrets.
struct signing_settings {
  bool x_signature = true;  // X-Signature: hex HMAC-SHA256 of the body (the seed's scheme)
  std::string hmac_secret;
  // Standard Webhooks with these whsec_ secrets, one signature each; empty: not used.
  std::vector<std::string> standard_webhooks_secrets;
  idempotency_key_form key_form = idempotency_key_form::plain;
};

// A route's signers, keyed once when the route starts. Throws std::invalid_argument for a
// malformed whsec_ secret (config validation refuses it before, naming the key).
class request_signing {
 public:
  explicit request_signing(const signing_settings& s);

  [[nodiscard]] const std::optional<hmac_signer>& x_signature() const { return x_signature_; }
  [[nodiscard]] const std::optional<standard_webhooks_signer>& standard_webhooks() const {
    return standard_webhooks_;
  }
  [[nodiscard]] idempotency_key_form key_form() const { return key_form_; }

 private:
  std::optional<hmac_signer> x_signature_;
  std::optional<standard_webhooks_signer> standard_webhooks_;
  idempotency_key_form key_form_;
};

// The HTTP request of one attempt for one record (DESIGN.md section 3): the body is the record
// value byte for byte; Content-Type from the record's `content-type` header or the route's
// default; the route's signatures; the record's stable Idempotency-Key. `attempt_time` (unix
// seconds) is this attempt's webhook-timestamp: every attempt is signed afresh.
http::request make_delivery_request(const record& r, const std::string& idempotency_key,
                                    const request_signing& signing,
                                    const std::string& default_content_type,
                                    std::int64_t attempt_time);

// What a route adds to every request beside the signatures: its static headers
// (routes[].headers, values resolved at start-up) and the record headers it forwards under
// their own names (routes[].forward_record_headers: W3C traceparent and tracestate by default).
struct route_headers {
  header_list fixed;
  std::vector<std::string> forwarded;
};

// Appends the route's headers to `req`: the fixed ones, each forwarded header the record
// carries (its first value, names compared case-insensitively; a value with a control or
// non-ASCII byte is not sent) and, when not empty, `authorization` as the Authorization header.
void add_route_headers(http::request& req, const record& r, const route_headers& h,
                       const std::string& authorization);

}  // namespace courier
