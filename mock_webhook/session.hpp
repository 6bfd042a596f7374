#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "mock_webhook/router.hpp"

namespace courier::mock {

// One accepted connection, as in Beast's async server example: owned through
// shared_from_this by its pending operation, keep-alive until the client or the response
// says otherwise. Latency and hangs are timers, so no thread ever waits. With a TLS context
// it serves HTTPS: a server handshake first, then the same exchange over the TLS stream.
class session : public std::enable_shared_from_this<session> {
 public:
  // `tls` null: plain HTTP.
  session(boost::asio::ip::tcp::socket&& socket, std::shared_ptr<router> routes,
          std::chrono::milliseconds hang_for, boost::asio::ssl::context* tls);

  void run();

 private:
  using tls_stream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

  template <class Op>
  void with_stream(Op&& op);
  boost::beast::tcp_stream& lowest_layer();

  void on_handshake(boost::beast::error_code ec);
  void read();
  void on_read(boost::beast::error_code ec, std::size_t bytes);
  void on_delay(boost::beast::error_code ec);
  void on_hang(boost::beast::error_code ec);
  void write();
  void on_write(boost::beast::error_code ec, std::size_t bytes);
  void close();

  std::optional<boost::beast::tcp_stream> plain_;
  std::optional<tls_stream> tls_;
  boost::beast::flat_buffer buffer_;  // lives as long as the connection: may hold read-ahead
  boost::asio::steady_timer timer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  reply reply_;
  std::shared_ptr<router> routes_;
  std::chrono::milliseconds hang_for_;
};

}  // namespace courier::mock
