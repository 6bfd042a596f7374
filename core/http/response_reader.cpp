#include "core/http/response_reader.hpp"

#include <algorithm>

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>

namespace courier::http {

namespace beast = boost::beast;

void response_parser::on_request_impl(beast::http::verb /*method*/,
                                      beast::string_view /*method_str*/,
                                      beast::string_view /*target*/, int /*version*/,
                                      beast::error_code& ec) {
  // basic_parser<false> parses only status lines; a request line is not an answer.
  ec = beast::http::error::bad_version;
}

void response_parser::on_response_impl(int code, beast::string_view /*reason*/, int /*version*/,
                                       beast::error_code& /*ec*/) {
  status_ = code;
}

void response_parser::keep_fields(const std::vector<std::string>* names) {
  kept_names_ = names;
  kept_values_.assign(names == nullptr ? 0 : names->size(), std::nullopt);
}

std::vector<std::pair<std::string, std::string>> response_parser::kept_fields() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i < kept_values_.size(); ++i) {
    if (kept_values_[i]) {
      out.emplace_back((*kept_names_)[i], *kept_values_[i]);
    }
  }
  return out;
}

// Beast's signature (an override).
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
void response_parser::on_field_impl(beast::http::field name, beast::string_view name_string,
                                    beast::string_view value, beast::error_code& /*ec*/) {
  if (name == beast::http::field::retry_after && !retry_after_) {
    retry_after_.emplace(value.data(), value.size());
  }
  for (std::size_t i = 0; i < kept_values_.size(); ++i) {
    if (!kept_values_[i] && beast::iequals(name_string, (*kept_names_)[i])) {
      kept_values_[i].emplace(value.data(), value.size());
    }
  }
}

void response_parser::on_header_impl(beast::error_code& /*ec*/) {}

void response_parser::on_body_init_impl(const boost::optional<std::uint64_t>& content_length,
                                        beast::error_code& /*ec*/) {
  if (content_length) {
    // basic_parser has already refused a length over the body limit (body_limit); a parser
    // without limit() still reserves no more than 1 MiB ahead of the bytes.
    constexpr std::uint64_t most_ahead = 1U << 20U;
    body_.reserve(static_cast<std::size_t>(std::min(*content_length, most_ahead)));
  }
}

std::size_t response_parser::on_body_impl(beast::string_view body, beast::error_code& /*ec*/) {
  body_.append(body.data(), body.size());
  return body.size();
}

void response_parser::on_chunk_header_impl(std::uint64_t /*size*/,
                                           beast::string_view /*extensions*/,
                                           beast::error_code& /*ec*/) {}

std::size_t response_parser::on_chunk_body_impl(std::uint64_t /*remain*/, beast::string_view body,
                                                beast::error_code& /*ec*/) {
  body_.append(body.data(), body.size());
  return body.size();
}

void response_parser::on_finish_impl(beast::error_code& /*ec*/) {}

void limit(response_parser& parser, const response_limits& limits) {
  parser.body_limit(limits.max_body_bytes);
  parser.header_limit(limits.max_header_bytes);
}

std::size_t read_buffer_limit(const response_limits& limits) {
  constexpr std::size_t slack = 4096;  // a chunk line and the CRLFs around a chunk
  return std::size_t{limits.max_header_bytes} + limits.max_body_bytes + slack;
}

bool declares_too_large(const response_parser& parser, const response_limits& limits) {
  const auto declared = parser.content_length();
  return declared && *declared > limits.max_body_bytes;
}

}  // namespace courier::http
