#include "core/http/response_reader.hpp"

namespace courier::http {

void limit(response_parser& parser, const response_limits& limits) {
  parser.body_limit(limits.max_body_bytes);
  parser.header_limit(limits.max_header_bytes);
}

bool declares_too_large(const response_parser& parser, const response_limits& limits) {
  const auto declared = parser.content_length();
  return declared && *declared > limits.max_body_bytes;
}

}  // namespace courier::http
