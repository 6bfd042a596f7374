#include "core/delivery/delivery_request.hpp"

#include <algorithm>
#include <cctype>

#include "core/model/idempotency_key.hpp"
#include "core/retry/retry_headers.hpp"  // replay_id_header

namespace courier {
namespace {

// Printable ASCII and tab: what a header value may carry as it is.
bool is_plain_value(std::string_view v) {
  return std::all_of(v.begin(), v.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c >= 0x20 && c <= 0x7e) || c == '\t';
  });
}

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

request_signing::request_signing(const signing_settings& s) : key_form_(s.key_form) {
  if (s.x_signature) {
    x_signature_.emplace(s.hmac_secret);
  }
  if (!s.standard_webhooks_secrets.empty()) {
    standard_webhooks_.emplace(s.standard_webhooks_secrets);
  }
}

http::request make_delivery_request(const record& r, const std::string& idempotency_key,
                                    const request_signing& signing,
                                    const std::string& default_content_type,
                                    std::int64_t attempt_time) {
  http::request req;
  req.body = r.value;
  // A record's own content-type wins unless a header value cannot carry it (CR, LF, other
  // controls, non-ASCII): then the route's default, so no record can inject a header.
  const auto carried_type = find_header(r.headers, "content-type");
  const bool usable =
      carried_type && std::all_of(carried_type->begin(), carried_type->end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return c >= 0x20 && c <= 0x7e;
      });
  req.content_type = usable ? std::string{*carried_type} : default_content_type;
  req.headers.reserve((signing.x_signature() ? 1U : 0U) + (signing.standard_webhooks() ? 3U : 0U) +
                      1U);
  if (const auto& x = signing.x_signature()) {
    req.headers.emplace_back("X-Signature", x->sign(req.body.view()));
  }
  if (const auto& sw = signing.standard_webhooks()) {
    auto id = webhook_id_for(idempotency_key);
    auto signature = sw->sign(id, attempt_time, req.body.view());
    req.headers.emplace_back("webhook-id", std::move(id));
    req.headers.emplace_back("webhook-timestamp", std::to_string(attempt_time));
    req.headers.emplace_back("webhook-signature", std::move(signature));
  }
  switch (signing.key_form()) {
    case idempotency_key_form::plain:
      req.headers.emplace_back("Idempotency-Key", idempotency_key);
      break;
    case idempotency_key_form::sf_string:
      req.headers.emplace_back("Idempotency-Key", idempotency_key_sf_string(idempotency_key));
      break;
  }
  return req;
}

void add_route_headers(http::request& req, const record& r, const route_headers& h,
                       const std::string& authorization) {
  req.headers.insert(req.headers.end(), h.fixed.begin(), h.fixed.end());
  for (const auto& name : h.forwarded) {
    const auto it = std::find_if(r.headers.begin(), r.headers.end(),
                                 [&](const header& rh) { return same_name(rh.first, name); });
    if (it != r.headers.end() && is_plain_value(it->second)) {
      req.headers.emplace_back(name, it->second);
    }
  }
  if (!authorization.empty()) {
    req.headers.emplace_back("Authorization", authorization);
  }
  // A copy `courier replay` wrote (only courier writes the header: it is provenance).
  if (const auto replay = find_header(r.headers, replay_id_header);
      replay && is_plain_value(*replay)) {
    req.headers.emplace_back("Courier-Replay-Id", std::string{*replay});
  }
}

}  // namespace courier
