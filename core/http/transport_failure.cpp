#include "core/http/transport_failure.hpp"

#include <optional>

#include <openssl/x509_vfy.h>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

namespace courier::http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;
using boost::system::error_code;

namespace {

bool is_tls_failure(const error_code& ec) {
  return ec.category() == net::error::get_ssl_category() ||
         (ec.category() == net::ssl::error::get_stream_category() &&
          ec != net::ssl::error::stream_truncated);
}

std::string describe(const std::string& what, const error_code& ec) {
  return what + ": " + ec.message();
}

// A read that ended at one of the client's limits: the answer is too large to take.
std::optional<transport_failure> too_large(const failure_facts& f) {
  if (f.step != exchange_step::read) {
    return std::nullopt;
  }
  if (f.ec == beast_http::error::header_limit) {
    return transport_failure{
        transport_error::response_too_large,
        "response headers exceed " + std::to_string(f.max_header_bytes) + " bytes"};
  }
  if (f.ec == beast_http::error::body_limit) {
    return transport_failure{
        transport_error::response_too_large,
        "response body exceeds " + std::to_string(f.max_response_bytes) + " bytes"};
  }
  if (f.ec == beast_http::error::buffer_overflow) {
    // What Beast does not count against the body limit: a chunk line (its extension) or a
    // trailer that does not end within the read buffer.
    return transport_failure{transport_error::response_too_large,
                             "response framing (a chunk line or trailer) exceeds " +
                                 std::to_string(f.read_buffer_bytes) + " bytes unparsed"};
  }
  return std::nullopt;
}

std::string timeout_message(const failure_facts& f) {
  std::string after = "timed out after " + std::to_string(f.timeout.count()) + " ms";
  switch (f.step) {
    case exchange_step::resolve:
      return after + " resolving the host";
    case exchange_step::connect:
      return after + " connecting";
    case exchange_step::handshake:
      return after + " in the TLS handshake";
    case exchange_step::write:
      return after + " sending the request";
    case exchange_step::read:
      return after + (f.head_read ? " reading the response body" : " waiting for the response");
  }
  return after;
}

// Why a TLS handshake or a TLS record failed: the peer's certificate verification result when
// there is one ("certificate has expired"), else OpenSSL's reason.
std::string tls_reason(const failure_facts& f) {
  if (f.certificate_verify != X509_V_OK) {
    return std::string{"certificate verify failed: "} +
           X509_verify_cert_error_string(f.certificate_verify);
  }
  return f.ec.message();
}

bool malformed(const error_code& ec) {
  return ec.category() == beast_http::make_error_code(beast_http::error::bad_version).category() &&
         ec != beast_http::error::end_of_stream && ec != beast_http::error::partial_message;
}

// The failure as the step it happened in names it.
transport_failure step_failure(const failure_facts& f) {
  switch (f.step) {
    case exchange_step::resolve:
      return {transport_error::dns, describe("cannot resolve host of " + f.target, f.ec)};
    case exchange_step::connect:
      return {transport_error::connect, describe("cannot connect to " + f.target, f.ec)};
    case exchange_step::handshake:
      return {transport_error::tls, describe("TLS handshake with " + f.target + " failed", f.ec)};
    case exchange_step::write:
      return {transport_error::reset, describe("connection lost while sending the request", f.ec)};
    case exchange_step::read:
      if (malformed(f.ec)) {
        return {transport_error::protocol, describe("malformed response", f.ec)};
      }
      return {transport_error::reset, describe("connection lost while reading the response", f.ec)};
  }
  return {transport_error::reset, describe("connection lost", f.ec)};
}

}  // namespace

transport_failure classify_failure(const failure_facts& f) {
  if (f.aborted) {
    return {transport_error::reset, "client shut down"};
  }
  if (auto failure = too_large(f)) {
    return *std::move(failure);
  }
  if (f.timed_out || f.ec == beast::error::timeout) {
    return {transport_error::timeout, timeout_message(f)};
  }
  if (f.step != exchange_step::resolve && f.step != exchange_step::connect &&
      is_tls_failure(f.ec)) {
    // Never retried over plain HTTP: the next attempt does the whole handshake again.
    return {transport_error::tls,
            (f.step == exchange_step::handshake ? "TLS handshake with " + f.target + " failed: "
                                                : "TLS failure talking to " + f.target + ": ") +
                tls_reason(f)};
  }
  return step_failure(f);
}

bool closed_by_peer(const error_code& ec) {
  return ec == beast_http::error::end_of_stream || ec == net::error::eof ||
         ec == net::error::connection_reset || ec == net::error::broken_pipe ||
         ec == net::error::connection_aborted || ec == net::ssl::error::stream_truncated;
}

}  // namespace courier::http
