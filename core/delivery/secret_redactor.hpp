#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/attempt_answer.hpp"

namespace courier {

// Replaces a route's secrets by "[redacted]" in text a partner sent (or that names it): the
// response excerpt that becomes courier.error.response, error messages, the attempt trace. A
// partner, or a gateway in front of it, that echoes request headers must not put the route's
// credentials into tier and DLQ records or logs. Pure and cheap when no secret is in the text.
class secret_redactor {
 public:
  static constexpr std::string_view mark = "[redacted]";
  // A shorter value is no secret worth blanking: redacting "1" would wreck every text.
  static constexpr std::size_t shortest_secret = 4;

  secret_redactor() = default;
  // The route's fixed secrets (HMAC and whsec secrets, static header values, the url's path and
  // query); empty, short and repeated ones are dropped.
  explicit secret_redactor(std::vector<std::string> secrets);

  // Whether `text` holds one of the secrets, or one of `also` (values of this one text only:
  // the credential the attempt carried, which rotates).
  [[nodiscard]] bool finds_any(std::string_view text,
                               const std::vector<std::string_view>& also = {}) const;

  // `text` with every occurrence of a secret (and of `also`) replaced by mark, the longest
  // secret first so that one holding another is replaced whole.
  [[nodiscard]] std::string redact(std::string_view text,
                                   const std::vector<std::string_view>& also = {}) const;

  [[nodiscard]] std::size_t size() const { return secrets_.size(); }

 private:
  std::vector<std::string> secrets_;  // longest first
};

// What an Authorization value gives away: the whole value ("Bearer abc") and its credential
// ("abc", after the scheme), as a partner may echo either.
std::vector<std::string_view> authorization_secrets(std::string_view authorization);

// A partner's answer (body, error message, header values) without the secrets and `also`;
// nothing when it holds none (no copy on the usual path).
std::optional<attempt_answer> redacted(const attempt_answer& a, const secret_redactor& r,
                                       const std::vector<std::string_view>& also);

}  // namespace courier
