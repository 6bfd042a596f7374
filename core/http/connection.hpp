#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/ip/basic_resolver.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "core/http/exchange.hpp"
#include "core/http/response_reader.hpp"
#include "core/http/transport_failure.hpp"

namespace courier::http {

class connection_pool;

// One keep-alive connection of the pool, in the style of Beast's async client example: owned
// through shared_from_this while an operation is pending, one on_<step> per async step.
//
// The io_context is run by one thread (an io_runner of one, or each of io_threads'), so
// every handler of every connection runs on it one at a time: no strand, and the socket, resolver
// and timer use the io_context's own executor rather than a type-erased one. start() and
// abort() may be called from any thread; they post to that one.
//
// One deadline spans an exchange, from resolve to the last byte of the response. It is watched
// by one timer per connection that is armed when an exchange starts on an idle connection and
// re-armed only when it fires before the current deadline: an exchange on a kept-alive
// connection arms and cancels no timer at all. When a deadline passes, the watchdog cancels
// the resolver and closes the socket, and the step that was pending fails as a timeout.
//
// Within that deadline each resolved address has a connect deadline of its own
// (client_settings::connect_timeout, on a second timer that runs only while connecting): an
// address that does not answer (its SYNs dropped) gives way to the next, instead of holding
// every new connection until the exchange's deadline.
//
// Steps: resolve, admit (the SSRF guard filters the resolved addresses; only those left are
// connected to, so what was checked is what is dialled), connect, for https:// a handshake
// (SNI, the peer's certificate verified against the host name or IP), then write and read.
class connection : public std::enable_shared_from_this<connection> {
 public:
  using executor = boost::asio::io_context::executor_type;
  using plain_stream = boost::asio::basic_stream_socket<boost::asio::ip::tcp, executor>;
  using tls_stream = boost::beast::ssl_stream<plain_stream>;

  connection(boost::asio::io_context& ioc, std::shared_ptr<connection_pool> pool);

  // Runs `ex`; reports back through connection_pool::release. Callable from any thread, only
  // while the connection is not running another exchange.
  void start(exchange ex);

  // Closes the socket on the io thread; a running exchange ends with "client shut down".
  void abort();

 private:
  using step = exchange_step;

  void run();
  // A kept-alive connection that received bytes while idle cannot carry the next request.
  // Bytes read ahead with the last answer always count; the kernel is asked (FIONREAD) only
  // once the connection has been idle for client_settings::idle_check_after.
  bool idle_bytes_arrived();
  // Watches current_.deadline; see the class comment.
  void watch_deadline();
  void on_watchdog(boost::beast::error_code ec);
  void resolve();
  // Ends the exchange with `why` if its lookup is still running; false if none is.
  bool end_lookup(boost::beast::error_code why);
  void on_resolve(boost::beast::error_code ec,
                  const boost::asio::ip::tcp::resolver::results_type& results);
  // The SSRF guard between resolving and connecting.
  void admit(const std::vector<boost::asio::ip::tcp::endpoint>& candidates);
  void connect(const std::vector<boost::asio::ip::tcp::endpoint>& peers);
  // Dials the next of peers_ under its connect deadline; fails with the last error after all.
  void connect_next();
  void on_connect(boost::beast::error_code ec);
  void handshake();
  void on_handshake(boost::beast::error_code ec);
  // A parser for the next response, with the client's limits.
  void fresh_parser();
  void write();
  void on_write(boost::beast::error_code ec, std::size_t bytes);
  void read_header();
  void on_read_header(boost::beast::error_code ec, std::size_t bytes);
  void read_body();
  void on_read(boost::beast::error_code ec, std::size_t bytes);

  // What ends a read: a stale kept-alive connection (retried) or a failure (an oversize body or
  // header among them). True when `ec` ended or restarted the exchange.
  bool read_failed(boost::beast::error_code ec);
  // A reused connection the server had already closed: retry once on a fresh one.
  bool retry_if_stale(boost::beast::error_code ec);
  // Sets the status (and Retry-After) of an answer whose headers were read whole on `r`, which
  // ends in an error while its body was read: the receiver decided, whatever happened to the
  // body afterwards (answer_judge judges by the status then).
  void keep_status(response& r) const;
  // Ends the exchange with the failure of `ec` in step `where` (classify_failure decides).
  void fail(step where, boost::beast::error_code ec);
  [[nodiscard]] failure_facts facts(step where, boost::beast::error_code ec);
  void end_with(const failure_facts& f);
  void blocked(const std::string& why);
  void finish(response r, bool reusable);
  void close();

  // The stream the current connection runs over; `op(stream)` for either kind.
  template <class Op>
  void with_stream(Op&& op);
  plain_stream& lowest_layer();
  [[nodiscard]] response_limits limits() const;

  using timer = boost::asio::basic_waitable_timer<
      std::chrono::steady_clock, boost::asio::wait_traits<std::chrono::steady_clock>, executor>;

  std::shared_ptr<connection_pool> pool_;
  executor executor_;
  boost::asio::ip::basic_resolver<boost::asio::ip::tcp, executor> resolver_;
  timer watchdog_;
  timer connect_timer_;                   // the connect deadline of the address being dialled
  std::uint64_t connect_generation_ = 0;  // the dial that counts: earlier timers were superseded
  std::vector<boost::asio::ip::tcp::endpoint> peers_;  // admitted, dialled in order
  std::size_t next_peer_ = 0;
  bool peer_timed_out_ = false;             // the address being dialled ran out of its deadline
  boost::beast::error_code connect_error_;  // the last address's failure
  bool watchdog_armed_ = false;
  std::uint64_t watchdog_generation_ = 0;  // the wait that counts: earlier ones were superseded
  bool busy_ = false;              // an exchange is running: the watchdog's deadline applies
  bool timed_out_ = false;         // the watchdog ended the current exchange's deadline
  plain_stream plain_;             // http://
  std::optional<tls_stream> tls_;  // https://: a fresh one for every TCP connection
  // Lives as long as the connection (it may hold read-ahead); its maximum is read_buffer_limit.
  boost::beast::flat_buffer buffer_;
  std::optional<response_parser> parser_;
  exchange current_;
  bool connected_ = false;
  std::chrono::steady_clock::time_point answered_at_{};   // when the last answer ended
  std::chrono::steady_clock::time_point connected_at_{};  // when its TCP connection was made
  bool reused_ = false;   // the current attempt runs over a kept-alive connection
  bool retried_ = false;  // the one transparent retry is spent
  bool aborted_ = false;
  bool resolving_ = false;  // an async lookup of this exchange is running; see on_watchdog
  // The server sent an interim (1xx) answer to this request: it has the request, so a close
  // that follows is no stale connection to retry.
  bool answered_interim_ = false;
};

}  // namespace courier::http
