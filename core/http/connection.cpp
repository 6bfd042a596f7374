#include "core/http/connection.hpp"

#include <utility>
#include <vector>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "core/http/connection_pool.hpp"

namespace courier::http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

namespace {

// The peer went away: what a kept-alive connection looks like once the server has dropped it.
bool closed_by_peer(const beast::error_code& ec) {
  return ec == beast_http::error::end_of_stream || ec == net::error::eof ||
         ec == net::error::connection_reset || ec == net::error::broken_pipe ||
         ec == net::error::connection_aborted;
}

std::string describe(const std::string& what, const beast::error_code& ec) {
  return what + ": " + ec.message();
}

}  // namespace

connection::connection(net::io_context& ioc, std::shared_ptr<connection_pool> pool)
    : pool_(std::move(pool)),
      strand_(net::make_strand(ioc)),
      resolver_(strand_),
      resolve_deadline_(strand_),
      stream_(strand_) {}

void connection::start(exchange ex) {
  net::post(strand_, [self = shared_from_this(), ex = std::move(ex)]() mutable {
    self->current_ = std::move(ex);
    self->retried_ = false;
    self->run();
  });
}

void connection::abort() {
  net::post(strand_, [self = shared_from_this()] {
    self->aborted_ = true;
    self->resolver_.cancel();
    self->resolve_deadline_.cancel();
    self->close();
  });
}

void connection::run() {
  if (aborted_) {
    fail(step::write, net::error::operation_aborted);
    return;
  }
  if (connected_) {
    reused_ = true;
    write();
    return;
  }
  reused_ = false;
  resolve();
}

void connection::resolve() {
  const endpoint& ep = pool_->target();
  beast::error_code ec;
  const auto address = net::ip::make_address(ep.host, ec);
  if (!ec) {
    // An IP literal needs no resolver, and so cannot hang in one.
    connect(tcp::resolver::results_type::create(tcp::endpoint(address, ep.port), ep.host,
                                                std::to_string(ep.port)));
    return;
  }
  // The resolver knows nothing of the stream's deadline, so a timer cancels it.
  resolve_timed_out_ = false;
  resolve_deadline_.expires_at(current_.deadline);
  resolve_deadline_.async_wait(
      beast::bind_front_handler(&connection::on_resolve_deadline, shared_from_this()));
  resolver_.async_resolve(ep.host, std::to_string(ep.port),
                          beast::bind_front_handler(&connection::on_resolve, shared_from_this()));
}

void connection::on_resolve_deadline(beast::error_code ec) {
  if (ec) {
    return;  // cancelled: the resolver answered first
  }
  resolve_timed_out_ = true;
  resolver_.cancel();
}

void connection::on_resolve(beast::error_code ec, const tcp::resolver::results_type& results) {
  resolve_deadline_.cancel();
  if (ec) {
    fail(step::resolve, resolve_timed_out_ ? beast::error::timeout : ec);
    return;
  }
  connect(results);
}

void connection::connect(const tcp::resolver::results_type& results) {
  stream_.expires_at(current_.deadline);
  stream_.async_connect(results,
                        beast::bind_front_handler(&connection::on_connect, shared_from_this()));
}

void connection::on_connect(beast::error_code ec, const tcp::endpoint& /*peer*/) {
  if (ec) {
    fail(step::connect, ec);
    return;
  }
  connected_ = true;
  pool_->note_connection_opened();
  // Header and body go out in one write anyway; this keeps small requests from waiting on
  // the peer's delayed ACK.
  beast::error_code ignored;
  stream_.socket().set_option(tcp::no_delay(true), ignored);
  write();
}

void connection::write() {
  parser_.emplace();
  parser_->body_limit(pool_->settings().max_response_bytes);
  stream_.expires_at(current_.deadline);  // one deadline spans the whole request
  beast_http::async_write(stream_, *current_.message,
                          beast::bind_front_handler(&connection::on_write, shared_from_this()));
}

void connection::on_write(beast::error_code ec, std::size_t /*bytes*/) {
  if (ec) {
    if (!retry_if_stale(ec)) {
      fail(step::write, ec);
    }
    return;
  }
  read_header();
}

void connection::read_header() {
  stream_.expires_at(current_.deadline);
  beast_http::async_read_header(
      stream_, buffer_, *parser_,
      beast::bind_front_handler(&connection::on_read_header, shared_from_this()));
}

void connection::on_read_header(beast::error_code ec, std::size_t /*bytes*/) {
  if (read_failed(ec)) {
    return;
  }
  // Beast 1.74's parser checks a declared Content-Length against body_limit only when the
  // header arrives apart from the body, so an announced oversize body is refused here too.
  const auto declared = parser_->content_length();
  if (declared && *declared > pool_->settings().max_response_bytes) {
    too_large();
    return;
  }
  read_body();
}

void connection::read_body() {
  stream_.expires_at(current_.deadline);
  beast_http::async_read(stream_, buffer_, *parser_,
                         beast::bind_front_handler(&connection::on_read, shared_from_this()));
}

void connection::on_read(beast::error_code ec, std::size_t /*bytes*/) {
  if (read_failed(ec)) {
    return;
  }
  auto& msg = parser_->get();
  response r;
  r.status = static_cast<int>(msg.result_int());
  r.body = std::move(msg.body());
  if (const auto it = msg.find(beast_http::field::retry_after); it != msg.end()) {
    r.retry_after = std::string(it->value());
  }
  r.reused_connection = reused_;
  finish(std::move(r), /*reusable=*/!msg.need_eof());
}

bool connection::read_failed(beast::error_code ec) {
  if (ec == beast_http::error::body_limit && !aborted_) {
    too_large();
    return true;
  }
  if (!ec) {
    return false;
  }
  if (!retry_if_stale(ec)) {
    fail(step::read, ec);
  }
  return true;
}

void connection::too_large() {
  response r;
  r.error = transport_error::response_too_large;
  r.error_message =
      "response body exceeds " + std::to_string(pool_->settings().max_response_bytes) + " bytes";
  r.reused_connection = reused_;
  if (parser_->is_header_done()) {
    r.status = static_cast<int>(parser_->get().result_int());
  }
  // The rest of the body is still on the wire: the connection cannot carry another request.
  finish(std::move(r), /*reusable=*/false);
}

bool connection::retry_if_stale(beast::error_code ec) {
  // Only when nothing of the response arrived: then the server cannot have acted on a
  // request it closed on, and one fresh attempt is safe (the body also carries a key).
  const bool nothing_read = !parser_ || !parser_->got_some();
  if (!reused_ || retried_ || aborted_ || !nothing_read || !closed_by_peer(ec)) {
    return false;
  }
  retried_ = true;
  close();
  reused_ = false;
  resolve();
  return true;
}

void connection::fail(step where, beast::error_code ec) {
  const auto& settings = pool_->settings();
  response r;
  r.reused_connection = reused_;
  if (aborted_) {
    r.error = transport_error::reset;
    r.error_message = "client shut down";
    finish(std::move(r), /*reusable=*/false);
    return;
  }
  if (ec == beast::error::timeout) {
    r.error = transport_error::timeout;
    r.error_message = "timed out after " + std::to_string(settings.timeout.count()) + " ms";
    switch (where) {
      case step::resolve:
        r.error_message += " resolving the host";
        break;
      case step::connect:
        r.error_message += " connecting";
        break;
      case step::write:
        r.error_message += " sending the request";
        break;
      case step::read:
        r.error_message += " waiting for the response";
        break;
    }
    finish(std::move(r), /*reusable=*/false);
    return;
  }
  const std::string where_to = to_string(pool_->target());
  switch (where) {
    case step::resolve:
      r.error = transport_error::dns;
      r.error_message = describe("cannot resolve host of " + where_to, ec);
      break;
    case step::connect:
      r.error = transport_error::connect;
      r.error_message = describe("cannot connect to " + where_to, ec);
      break;
    case step::write:
      r.error = transport_error::reset;
      r.error_message = describe("connection lost while sending the request", ec);
      break;
    case step::read:
      if (ec.category() == beast_http::make_error_code(beast_http::error::bad_version).category() &&
          ec != beast_http::error::end_of_stream && ec != beast_http::error::partial_message) {
        r.error = transport_error::protocol;
        r.error_message = describe("malformed response", ec);
      } else {
        r.error = transport_error::reset;
        r.error_message = describe("connection lost while reading the response", ec);
      }
      break;
  }
  finish(std::move(r), /*reusable=*/false);
}

void connection::finish(response r, bool reusable) {
  auto on_done = std::move(current_.on_done);
  current_ = exchange{};
  parser_.reset();
  if (!reusable) {
    close();
  }
  // Hand the connection back before on_done: a caller that posts again from on_done (or
  // right after it) then finds it idle instead of opening another one. From here on another
  // thread may start() this connection; its run() waits for this handler on the strand.
  if (!pool_->release(shared_from_this(), reusable)) {
    close();
  }
  on_done(std::move(r));
}

void connection::close() {
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
  connected_ = false;
  buffer_.consume(buffer_.size());
}

}  // namespace courier::http
