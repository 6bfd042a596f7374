// The classifier that turns a failed step of an exchange into courier's transport error and its
// message, row by row: every branch of classify_failure, and what counts as the peer closing.

#include "core/http/transport_failure.hpp"

#include <string>
#include <vector>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

#include <gtest/gtest.h>

namespace courier::http {
namespace {

namespace net = boost::asio;
namespace beast_http = boost::beast::http;
using boost::system::error_code;

// An OpenSSL error as asio reports a failed handshake or TLS record.
error_code ssl_error() {
  return {static_cast<int>(ERR_PACK(ERR_LIB_SSL, 0, SSL_R_CERTIFICATE_VERIFY_FAILED)),
          net::error::get_ssl_category()};
}

struct row {
  const char* what;
  exchange_step step;
  error_code ec;
  bool aborted = false;
  bool timed_out = false;
  bool head_read = false;
  long certificate_verify = X509_V_OK;
  transport_error error;
  std::string message;  // a fragment of the expected message
};

failure_facts facts_of(const row& r) {
  failure_facts f;
  f.step = r.step;
  f.ec = r.ec;
  f.aborted = r.aborted;
  f.timed_out = r.timed_out;
  f.head_read = r.head_read;
  f.certificate_verify = r.certificate_verify;
  f.target = "https://partner.example:443";
  f.timeout = std::chrono::milliseconds{5000};
  f.max_response_bytes = 65536;
  f.max_header_bytes = 8192;
  f.read_buffer_bytes = 77824;
  return f;
}

using step = exchange_step;
using err = transport_error;

const std::vector<row>& table() {
  static const std::vector<row> rows{
      // A shutdown ends whatever was running, a limit included.
      {"a shutdown while writing", step::write, net::error::operation_aborted, true, false, false,
       X509_V_OK, err::reset, "client shut down"},
      {"a shutdown as a header limit was hit", step::read, beast_http::error::header_limit, true,
       false, false, X509_V_OK, err::reset, "client shut down"},
      // The client's limits on a read.
      {"headers over the limit", step::read, beast_http::error::header_limit, false, false, false,
       X509_V_OK, err::response_too_large, "response headers exceed 8192 bytes"},
      {"a body over the limit", step::read, beast_http::error::body_limit, false, false, true,
       X509_V_OK, err::response_too_large, "response body exceeds 65536 bytes"},
      {"a body over the limit as the deadline passed", step::read, beast_http::error::body_limit,
       false, true, true, X509_V_OK, err::response_too_large, "response body exceeds 65536 bytes"},
      {"a full read buffer (an endless chunk line or trailer)", step::read,
       beast_http::error::buffer_overflow, false, false, true, X509_V_OK, err::response_too_large,
       "response framing (a chunk line or trailer) exceeds 77824 bytes unparsed"},
      // The exchange's deadline, named by the step it stopped.
      {"the deadline while resolving", step::resolve, net::error::timed_out, false, true, false,
       X509_V_OK, err::timeout, "timed out after 5000 ms resolving the host"},
      {"the deadline while connecting", step::connect, net::error::operation_aborted, false, true,
       false, X509_V_OK, err::timeout, "timed out after 5000 ms connecting"},
      {"the deadline in the handshake", step::handshake, ssl_error(), false, true, false, X509_V_OK,
       err::timeout, "timed out after 5000 ms in the TLS handshake"},
      {"the deadline while sending", step::write, net::error::bad_descriptor, false, true, false,
       X509_V_OK, err::timeout, "timed out after 5000 ms sending the request"},
      {"the deadline before the head", step::read, net::error::operation_aborted, false, true,
       false, X509_V_OK, err::timeout, "timed out after 5000 ms waiting for the response"},
      {"the deadline in the body", step::read, net::error::operation_aborted, false, true, true,
       X509_V_OK, err::timeout, "timed out after 5000 ms reading the response body"},
      {"Beast's own timeout", step::read, boost::beast::error::timeout, false, false, false,
       X509_V_OK, err::timeout, "timed out after 5000 ms waiting for the response"},
      // TLS after connecting: the certificate's verdict when there is one.
      {"a certificate that failed verification", step::handshake, ssl_error(), false, false, false,
       X509_V_ERR_CERT_HAS_EXPIRED, err::tls,
       "TLS handshake with https://partner.example:443 failed: certificate verify failed: "
       "certificate has expired"},
      {"a handshake OpenSSL refused", step::handshake, ssl_error(), false, false, false, X509_V_OK,
       err::tls, "TLS handshake with https://partner.example:443 failed: "},
      {"a TLS record that failed while reading", step::read, ssl_error(), false, false, true,
       X509_V_OK, err::tls, "TLS failure talking to https://partner.example:443: "},
      {"a TLS stream error while writing", step::write, net::ssl::error::unexpected_result, false,
       false, false, X509_V_OK, err::tls, "TLS failure talking to https://partner.example:443: "},
      // Otherwise the step decides.
      {"a TLS error while resolving is still a lookup failure", step::resolve, ssl_error(), false,
       false, false, X509_V_OK, err::dns, "cannot resolve host of https://partner.example:443: "},
      {"a host that does not resolve", step::resolve, net::error::host_not_found, false, false,
       false, X509_V_OK, err::dns, "cannot resolve host of https://partner.example:443: "},
      {"a TLS error while connecting is still a connect failure", step::connect, ssl_error(), false,
       false, false, X509_V_OK, err::connect, "cannot connect to https://partner.example:443: "},
      {"a refused connection", step::connect, net::error::connection_refused, false, false, false,
       X509_V_OK, err::connect, "cannot connect to https://partner.example:443: "},
      {"a handshake that could not be configured", step::handshake, net::error::invalid_argument,
       false, false, false, X509_V_OK, err::tls,
       "TLS handshake with https://partner.example:443 failed: "},
      {"a connection lost while sending", step::write, net::error::broken_pipe, false, false, false,
       X509_V_OK, err::reset, "connection lost while sending the request: "},
      {"a truncated TLS stream while reading", step::read, net::ssl::error::stream_truncated, false,
       false, false, X509_V_OK, err::reset, "connection lost while reading the response: "},
      {"the end of the stream while reading", step::read, beast_http::error::end_of_stream, false,
       false, false, X509_V_OK, err::reset, "connection lost while reading the response: "},
      {"a response cut off", step::read, beast_http::error::partial_message, false, false, true,
       X509_V_OK, err::reset, "connection lost while reading the response: "},
      {"a reset while reading", step::read, net::error::connection_reset, false, false, false,
       X509_V_OK, err::reset, "connection lost while reading the response: "},
      {"a malformed status line", step::read, beast_http::error::bad_version, false, false, false,
       X509_V_OK, err::protocol, "malformed response: "},
      {"a malformed chunk", step::read, beast_http::error::bad_chunk, false, false, true, X509_V_OK,
       err::protocol, "malformed response: "},
  };
  return rows;
}

TEST(TransportFailure, EachStepAndErrorGetsItsClassAndMessage) {
  for (const row& r : table()) {
    SCOPED_TRACE(r.what);
    const transport_failure f = classify_failure(facts_of(r));
    EXPECT_EQ(to_string(f.error), to_string(r.error));
    EXPECT_NE(f.message.find(r.message), std::string::npos) << f.message;
  }
}

TEST(TransportFailure, AMessageEndsWithTheReasonOfTheError) {
  row r{"",        step::connect, net::error::connection_refused,
        false,     false,         false,
        X509_V_OK, err::connect,  ""};
  const transport_failure f = classify_failure(facts_of(r));
  EXPECT_EQ(f.message, "cannot connect to https://partner.example:443: " + r.ec.message());
}

TEST(TransportFailure, OnlyAPeerThatWentAwayCountsAsClosed) {
  struct closing {
    error_code ec;
    bool closed;
  };
  const std::vector<closing> rows{{beast_http::error::end_of_stream, true},
                                  {net::error::eof, true},
                                  {net::error::connection_reset, true},
                                  {net::error::broken_pipe, true},
                                  {net::error::connection_aborted, true},
                                  {net::ssl::error::stream_truncated, true},
                                  {net::error::timed_out, false},
                                  {beast_http::error::partial_message, false},
                                  {net::error::connection_refused, false},
                                  {ssl_error(), false},
                                  {beast_http::error::buffer_overflow, false}};
  for (const closing& c : rows) {
    EXPECT_EQ(closed_by_peer(c.ec), c.closed) << c.ec.message();
  }
}

}  // namespace
}  // namespace courier::http
