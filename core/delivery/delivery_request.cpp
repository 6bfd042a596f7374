#include "core/delivery/delivery_request.hpp"

namespace courier {

http::request make_delivery_request(const record& r, const std::string& idempotency_key,
                                    const hmac_signer& signer,
                                    const std::string& default_content_type) {
  http::request req;
  req.body = r.value;
  const auto carried_type = find_header(r.headers, "content-type");
  req.content_type = carried_type ? std::string{*carried_type} : default_content_type;
  req.headers.emplace_back("X-Signature", signer.sign(req.body));
  req.headers.emplace_back("Idempotency-Key", idempotency_key);
  return req;
}

}  // namespace courier
