#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include <boost/system/error_code.hpp>

#include "core/model/transport_error.hpp"

namespace courier::http {

// The asynchronous step of an exchange that failed.
enum class exchange_step { resolve, connect, handshake, write, read };

// What the connection knows when a step fails: all that the failure's class and message depend
// on, read off the session so that the decision below needs no socket.
struct failure_facts {
  exchange_step step = exchange_step::read;
  boost::system::error_code ec;
  bool aborted = false;    // the client shut down
  bool timed_out = false;  // the exchange's deadline passed (the watchdog closed the socket)
  bool head_read = false;  // the response's head was read whole
  std::string target;      // the endpoint as to_string(endpoint) shows it: scheme://host:port
  // The peer certificate's verification result (X509_V_OK: none failed, or no TLS).
  long certificate_verify = 0;
  std::chrono::milliseconds timeout{};  // client_settings::timeout
  std::size_t max_response_bytes = 0;   // client_settings::max_response_bytes
  std::uint32_t max_header_bytes = 0;   // client_settings::max_header_bytes
  std::size_t read_buffer_bytes = 0;    // the read buffer's maximum (read_buffer_limit)
};

// Why an exchange produced no answer, as the attempt sees it.
struct transport_failure {
  transport_error error = transport_error::none;
  std::string message;
};

// The class and message of a failed step. In order: a shutdown is a reset ("client shut down");
// a read that hit a header, body or read-buffer limit is response_too_large; a passed deadline
// (or Beast's own timeout) is a timeout naming the step; a TLS error after connecting is tls,
// with the certificate's verification failure when there is one; else the step decides (dns,
// connect, tls, reset, or protocol for a malformed response).
[[nodiscard]] transport_failure classify_failure(const failure_facts& facts);

// The peer went away: what a kept-alive connection looks like once the server has dropped it.
// Over TLS a server that just drops the TCP connection (no close_notify) reads as a truncated
// stream.
[[nodiscard]] bool closed_by_peer(const boost::system::error_code& ec);

}  // namespace courier::http
