#pragma once

#include <string>

#include "core/delivery/hmac_signer.hpp"
#include "core/http/client.hpp"
#include "core/model/record.hpp"

namespace courier {

// The HTTP request for one record (DESIGN.md section 3): the body is the record value byte for
// byte; Content-Type from the record's `content-type` header or the route's default;
// X-Signature over the body; the record's stable Idempotency-Key.
http::request make_delivery_request(const record& r, const std::string& idempotency_key,
                                    const hmac_signer& signer,
                                    const std::string& default_content_type);

}  // namespace courier
