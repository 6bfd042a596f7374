#include "mock_webhook/session.hpp"

#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

namespace courier::mock {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

namespace {

// Long enough for any client's keep-alive pool in a test, short enough to shed dead peers.
constexpr std::chrono::seconds idle_timeout{60};
constexpr std::chrono::seconds write_timeout{30};
constexpr std::uint64_t max_request_body = std::uint64_t{8} * 1024 * 1024;

}  // namespace

session::session(tcp::socket&& socket, std::shared_ptr<router> routes,
                 std::chrono::milliseconds hang_for, net::ssl::context* tls)
    : timer_(socket.get_executor()), routes_(std::move(routes)), hang_for_(hang_for) {
  if (tls != nullptr) {
    // A response goes out as several TLS records: without this each waits for a delayed ACK.
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    tls_.emplace(std::move(socket), *tls);
  } else {
    plain_.emplace(std::move(socket));
  }
}

template <class Op>
void session::with_stream(Op&& op) {
  if (tls_) {
    op(*tls_);
  } else {
    op(*plain_);
  }
}

beast::tcp_stream& session::lowest_layer() {
  return tls_ ? beast::get_lowest_layer(*tls_) : *plain_;
}

void session::run() {
  // The socket came from the acceptor on this session's strand; start on it too.
  net::dispatch(lowest_layer().get_executor(), [self = shared_from_this()] {
    if (!self->tls_) {
      self->read();
      return;
    }
    self->lowest_layer().expires_after(write_timeout);
    self->tls_->async_handshake(
        net::ssl::stream_base::server,
        beast::bind_front_handler(&session::on_handshake, self->shared_from_this()));
  });
}

void session::on_handshake(beast::error_code ec) {
  if (ec) {
    // An unverifiable client certificate, a client that gave up on ours, or plain HTTP.
    close();
    return;
  }
  read();
}

void session::read() {
  parser_.emplace();
  parser_->body_limit(max_request_body);
  lowest_layer().expires_after(idle_timeout);
  with_stream([this](auto& stream) {
    beast_http::async_read(stream, buffer_, *parser_,
                           beast::bind_front_handler(&session::on_read, shared_from_this()));
  });
}

void session::on_read(beast::error_code ec, std::size_t /*bytes*/) {
  if (ec) {
    // end_of_stream is the client closing a kept-alive connection; anything else (timeout,
    // reset, garbage) ends the connection the same way.
    close();
    return;
  }
  reply_ = routes_->handle(parser_->get());
  if (reply_.hang) {
    // Hold the request like a stuck upstream would: no answer, then a close.
    lowest_layer().expires_never();
    timer_.expires_after(hang_for_);
    timer_.async_wait(beast::bind_front_handler(&session::on_hang, shared_from_this()));
    return;
  }
  if (reply_.delay.count() > 0) {
    timer_.expires_after(reply_.delay);
    timer_.async_wait(beast::bind_front_handler(&session::on_delay, shared_from_this()));
    return;
  }
  write();
}

void session::on_delay(beast::error_code ec) {
  if (ec) {
    close();
    return;
  }
  write();
}

void session::on_hang(beast::error_code /*ec*/) { close(); }

void session::write() {
  lowest_layer().expires_after(write_timeout);
  with_stream([this](auto& stream) {
    beast_http::async_write(stream, reply_.message,
                            beast::bind_front_handler(&session::on_write, shared_from_this()));
  });
}

void session::on_write(beast::error_code ec, std::size_t /*bytes*/) {
  if (ec || reply_.message.need_eof()) {
    close();
    return;
  }
  read();
}

void session::close() {
  beast::error_code ignored;
  lowest_layer().socket().shutdown(tcp::socket::shutdown_send, ignored);
  lowest_layer().close();
}

}  // namespace courier::mock
