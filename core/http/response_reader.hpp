#pragma once

#include <cstddef>
#include <cstdint>

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

namespace courier::http {

// The parser every webhook answer is read with, and the caps it is read under. The connection
// and the fuzz target (tests/fuzz/response_parser_fuzz.cpp) both set their parser up here, so
// what is fuzzed is what courier runs.
using response_parser = boost::beast::http::response_parser<boost::beast::http::string_body>;

struct response_limits {
  std::size_t max_body_bytes = 65536;     // client_settings::max_response_bytes
  std::uint32_t max_header_bytes = 8192;  // client_settings::max_header_bytes
};

// Sets a fresh parser's body and header limits: more ends the read with body_limit or
// header_limit (response_too_large).
void limit(response_parser& parser, const response_limits& limits);

// Once the header is read: whether it declares a Content-Length over the body cap. Beast 1.74
// checks that against body_limit only when the header arrives apart from the body, so an
// announced oversize body is refused by this instead, before any of it is read.
[[nodiscard]] bool declares_too_large(const response_parser& parser, const response_limits& limits);

}  // namespace courier::http
