#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/beast/core/error.hpp>
#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>
#include <boost/optional/optional.hpp>

namespace courier::http {

// The parser every webhook answer is read with, and the caps it is read under. The connection
// and the fuzz target (tests/fuzz/response_parser_fuzz.cpp) both set their parser up here, so
// what is fuzzed is what courier runs.
//
// Beast's own basic_parser does the parsing and all the checks (syntax, Content-Length and
// chunked framing, the body and header limits); this keeps of the answer only what courier
// reads: the status, the body and Retry-After. Beast's response_parser would store every
// header field (a node allocation each) only to be thrown away.
class response_parser final : public boost::beast::http::basic_parser<false> {
 public:
  [[nodiscard]] int status() const { return status_; }
  [[nodiscard]] const std::string& body() const { return body_; }
  std::string& body() { return body_; }
  // The first Retry-After field's value, if there was one.
  [[nodiscard]] const std::optional<std::string>& retry_after() const { return retry_after_; }
  // Keep the first value of each field `names` names (case-insensitive; routes[].receipts
  // .response_headers). `names` outlives the parser (the pool's settings).
  void keep_fields(const std::vector<std::string>* names);
  // Those of them the answer had: (the name as given, the value as sent), in the order given.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> kept_fields() const;

 private:
  void on_request_impl(boost::beast::http::verb method, boost::beast::string_view method_str,
                       boost::beast::string_view target, int version,
                       boost::beast::error_code& ec) override;
  void on_response_impl(int code, boost::beast::string_view reason, int version,
                        boost::beast::error_code& ec) override;
  void on_field_impl(boost::beast::http::field name, boost::beast::string_view name_string,
                     boost::beast::string_view value, boost::beast::error_code& ec) override;
  void on_header_impl(boost::beast::error_code& ec) override;
  void on_body_init_impl(const boost::optional<std::uint64_t>& content_length,
                         boost::beast::error_code& ec) override;
  std::size_t on_body_impl(boost::beast::string_view body, boost::beast::error_code& ec) override;
  void on_chunk_header_impl(std::uint64_t size, boost::beast::string_view extensions,
                            boost::beast::error_code& ec) override;
  std::size_t on_chunk_body_impl(std::uint64_t remain, boost::beast::string_view body,
                                 boost::beast::error_code& ec) override;
  void on_finish_impl(boost::beast::error_code& ec) override;

  int status_ = 0;
  std::string body_;
  std::optional<std::string> retry_after_;
  const std::vector<std::string>* kept_names_ = nullptr;
  std::vector<std::optional<std::string>> kept_values_;  // by index into *kept_names_
};

struct response_limits {
  std::size_t max_body_bytes = 65536;     // client_settings::max_response_bytes
  std::uint32_t max_header_bytes = 8192;  // client_settings::max_header_bytes
};

// Sets a fresh parser's body and header limits: more ends the read with body_limit or
// header_limit (response_too_large).
void limit(response_parser& parser, const response_limits& limits);

// The most the connection's read buffer may hold unparsed: the header limit, the body limit and
// a little. Beast 1.74 counts only chunk *sizes* against body_limit, so a chunk line whose
// extension never ends or a trailer that never ends would otherwise grow the buffer until the
// request's deadline; with this maximum the read fails with buffer_overflow at once.
[[nodiscard]] std::size_t read_buffer_limit(const response_limits& limits);

// Once the header is read: whether it declares a Content-Length over the body cap. Beast 1.74
// checks that against body_limit only when the header arrives apart from the body, so an
// announced oversize body is refused by this instead, before any of it is read.
[[nodiscard]] bool declares_too_large(const response_parser& parser, const response_limits& limits);

}  // namespace courier::http
