#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "core/http/exchange.hpp"

namespace courier::http {

class connection_pool;

// One keep-alive connection of the pool, in the style of Beast's async client example: owned
// through shared_from_this while an operation is pending, one on_<step> per async step, all
// on its own strand so the pool may run on several io threads.
class connection : public std::enable_shared_from_this<connection> {
 public:
  // The stream abstraction point: TLS will make this ssl_stream<tcp_stream> and add an
  // on_handshake step (SNI + host-name verification) between on_connect and write.
  using stream_type = boost::beast::tcp_stream;

  connection(boost::asio::io_context& ioc, std::shared_ptr<connection_pool> pool);

  // Runs `ex`; reports back through connection_pool::release. Callable from any thread, only
  // while the connection is not running another exchange.
  void start(exchange ex);

  // Closes the socket from the strand; a running exchange ends with "client shut down".
  void abort();

 private:
  enum class step { resolve, connect, write, read };

  void run();
  void resolve();
  void on_resolve_deadline(boost::beast::error_code ec);
  void on_resolve(boost::beast::error_code ec,
                  const boost::asio::ip::tcp::resolver::results_type& results);
  void connect(const boost::asio::ip::tcp::resolver::results_type& results);
  void on_connect(boost::beast::error_code ec, const boost::asio::ip::tcp::endpoint& peer);
  void write();
  void on_write(boost::beast::error_code ec, std::size_t bytes);
  void read_header();
  void on_read_header(boost::beast::error_code ec, std::size_t bytes);
  void read_body();
  void on_read(boost::beast::error_code ec, std::size_t bytes);

  // What ends a read: an oversize body, a stale kept-alive connection (retried) or a failure.
  // True when `ec` ended or restarted the exchange.
  bool read_failed(boost::beast::error_code ec);
  // A reused connection the server had already closed: retry once on a fresh one.
  bool retry_if_stale(boost::beast::error_code ec);
  void too_large();
  void fail(step where, boost::beast::error_code ec);
  void finish(response r, bool reusable);
  void close();

  std::shared_ptr<connection_pool> pool_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::ip::tcp::resolver resolver_;
  boost::asio::steady_timer resolve_deadline_;
  stream_type stream_;
  boost::beast::flat_buffer buffer_;  // lives as long as the connection: may hold read-ahead
  std::optional<boost::beast::http::response_parser<boost::beast::http::string_body>> parser_;
  exchange current_;
  bool connected_ = false;
  bool reused_ = false;   // the current attempt runs over a kept-alive connection
  bool retried_ = false;  // the one transparent retry is spent
  bool aborted_ = false;
  bool resolve_timed_out_ = false;
};

}  // namespace courier::http
