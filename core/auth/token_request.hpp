#pragma once

#include <string>
#include <string_view>

#include "core/auth/auth_settings.hpp"
#include "core/http/client.hpp"

namespace courier::auth {

// application/x-www-form-urlencoded (the WHATWG URL standard's serializer, which RFC 6749
// appendix B refers to): ASCII letters, digits and `*-._` as they are, a space as `+`, every
// other byte as `%XX` (upper-case hex) of its UTF-8.
std::string form_urlencode(std::string_view text);

// The Authorization value of HTTP Basic client authentication as RFC 6749 section 2.3.1 has it:
// "Basic " + base64(urlencode(client_id) ":" urlencode(client_secret)).
std::string basic_client_authorization(std::string_view client_id, std::string_view client_secret);

// The token request of the client-credentials grant (RFC 6749 section 4.4.2), POSTed to
// token_url: the body `grant_type=client_credentials`, then `scope` and `audience` when set,
// form-encoded; the client authenticated with Basic (section 2.3.1); JSON asked for.
http::request client_credentials_request(const oauth2_settings& c);

}  // namespace courier::auth
