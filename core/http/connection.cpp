#include "core/http/connection.hpp"

#include <array>
#include <exception>
#include <utility>
#include <vector>

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>

#include "core/http/address_guard.hpp"
#include "core/http/connection_pool.hpp"
#include "core/http/transport_failure.hpp"

namespace courier::http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

connection::connection(net::io_context& ioc, std::shared_ptr<connection_pool> pool)
    : pool_(std::move(pool)),
      executor_(ioc.get_executor()),
      resolver_(executor_),
      watchdog_(executor_),
      connect_timer_(executor_),
      plain_(executor_) {
  buffer_.max_size(read_buffer_limit(limits()));
}

template <class Op>
void connection::with_stream(Op&& op) {
  if (tls_) {
    op(*tls_);
  } else {
    op(plain_);
  }
}

response_limits connection::limits() const {
  const auto& s = pool_->settings();
  return response_limits{s.max_response_bytes, s.max_header_bytes};
}

connection::plain_stream& connection::lowest_layer() {
  return tls_ ? beast::get_lowest_layer(*tls_) : plain_;
}

void connection::start(exchange ex) {
  net::post(executor_, [self = shared_from_this(), ex = std::move(ex)]() mutable {
    self->current_ = std::move(ex);
    self->retried_ = false;
    self->timed_out_ = false;
    self->answered_interim_ = false;
    self->busy_ = true;
    self->watch_deadline();
    self->run();
  });
}

void connection::abort() {
  net::post(executor_, [self = shared_from_this()] {
    self->aborted_ = true;
    self->resolver_.cancel();
    self->watchdog_.cancel();
    self->close();
    self->end_lookup(net::error::operation_aborted);
  });
}

bool connection::end_lookup(beast::error_code why) {
  if (!resolving_) {
    return false;
  }
  // cancel() does not stop a lookup getaddrinfo is already running (asio runs it on a thread
  // of its own): the exchange ends now, and on_resolve ignores the lookup's result when it
  // comes, instead of connecting with nothing left to watch the exchange.
  resolving_ = false;
  fail(step::resolve, why);
  return true;
}

void connection::watch_deadline() {
  if (watchdog_armed_ && watchdog_.expiry() <= current_.deadline) {
    return;  // it fires first and re-arms for this deadline then
  }
  watchdog_armed_ = true;
  // Cancels a wait for a later time (its handler then finds a newer generation).
  watchdog_.expires_at(current_.deadline);
  watchdog_.async_wait(
      [self = shared_from_this(), generation = ++watchdog_generation_](beast::error_code ec) {
        if (generation == self->watchdog_generation_) {
          self->on_watchdog(ec);
        }
      });
}

void connection::on_watchdog(beast::error_code ec) {
  watchdog_armed_ = false;
  if (ec || !busy_ || aborted_) {
    return;  // cancelled, or idle: the next exchange arms it again
  }
  if (std::chrono::steady_clock::now() < current_.deadline) {
    watch_deadline();  // armed for an earlier exchange
    return;
  }
  timed_out_ = true;
  resolver_.cancel();
  if (end_lookup(net::error::timed_out)) {
    return;
  }
  // The pending step completes with an error, which fail() reports as the timeout.
  close();
}

void connection::run() {
  if (aborted_) {
    fail(step::write, net::error::operation_aborted);
    return;
  }
  if (connected_ && !idle_bytes_arrived()) {
    reused_ = true;
    write();
    return;
  }
  if (connected_) {
    // Whatever the server sent while the connection was idle (an unsolicited response, a
    // close_notify) would be read as the next request's answer: start afresh instead.
    close();
  }
  reused_ = false;
  resolve();
}

bool connection::idle_bytes_arrived() {
  if (buffer_.size() > 0) {
    return true;  // read ahead with the last answer
  }
  if (tls_) {
    // A TLS record read from the socket together with the answer's waits in OpenSSL (or in
    // the BIO asio feeds it) until decrypted: neither the buffer nor the kernel shows it.
    SSL* ssl = tls_->native_handle();
    if (SSL_has_pending(ssl) == 1 || BIO_ctrl_pending(SSL_get_rbio(ssl)) > 0) {
      return true;
    }
  }
  if (std::chrono::steady_clock::now() - answered_at_ < pool_->settings().idle_check_after) {
    return false;
  }
  beast::error_code ec;
  const auto waiting = lowest_layer().available(ec);
  return waiting > 0 || ec;
}

void connection::resolve() {
  const endpoint& ep = pool_->target();
  beast::error_code ec;
  const auto address = net::ip::make_address(ep.host, ec);
  if (!ec) {
    // An IP literal needs no resolver, and so cannot hang in one.
    admit({tcp::endpoint(address, ep.port)});
    return;
  }
  if (const auto& resolver = pool_->settings().resolver) {
    std::vector<tcp::endpoint> found;
    try {
      for (const auto& a : resolver(ep.host)) {
        found.emplace_back(a, ep.port);
      }
    } catch (const std::exception&) {
      found.clear();
    }
    if (found.empty()) {
      fail(step::resolve, net::error::host_not_found);
      return;
    }
    admit(found);
    return;
  }
  // The watchdog ends the exchange at the deadline, and on_resolve then ignores the result.
  resolving_ = true;
  resolver_.async_resolve(ep.host, std::to_string(ep.port),
                          beast::bind_front_handler(&connection::on_resolve, shared_from_this()));
}

void connection::on_resolve(beast::error_code ec, const tcp::resolver::results_type& results) {
  if (!resolving_) {
    return;  // the exchange ended while the lookup ran (its deadline, or a shutdown)
  }
  resolving_ = false;
  if (ec) {
    fail(step::resolve, ec);
    return;
  }
  std::vector<tcp::endpoint> found;
  for (const auto& entry : results) {
    found.push_back(entry.endpoint());
  }
  admit(found);
}

void connection::admit(const std::vector<tcp::endpoint>& candidates) {
  if (pool_->settings().allow_private_targets) {
    connect(candidates);
    return;
  }
  std::vector<tcp::endpoint> allowed;
  std::string refused;
  for (const auto& peer : candidates) {
    if (const auto range = reserved_range(peer.address())) {
      refused += (refused.empty() ? "" : ", ") + peer.address().to_string() + " (" +
                 std::string{*range} + ")";
    } else {
      allowed.push_back(peer);
    }
  }
  if (allowed.empty()) {
    blocked(refused);
    return;
  }
  // Only the addresses that passed are dialled: nothing is resolved again in between.
  connect(allowed);
}

void connection::connect(const std::vector<tcp::endpoint>& peers) {
  if (auto* ctx = pool_->tls_context()) {
    // An SSL stream cannot be reused once its connection is gone: one per TCP connection.
    tls_.emplace(executor_, *ctx);
  }
  peers_ = peers;
  next_peer_ = 0;
  connect_error_ = {};
  connect_next();
}

void connection::connect_next() {
  if (next_peer_ == peers_.size()) {
    fail(step::connect, connect_error_);
    return;
  }
  const auto peer = peers_[next_peer_++];
  auto& socket = lowest_layer();
  beast::error_code ignored;
  socket.close(ignored);  // after a failed address: async_connect opens it again
  peer_timed_out_ = false;
  const auto until = std::chrono::steady_clock::now() + pool_->settings().connect_timeout;
  if (pool_->settings().connect_timeout.count() > 0 && until < current_.deadline) {
    connect_timer_.expires_at(until);
    connect_timer_.async_wait(
        [self = shared_from_this(), generation = ++connect_generation_](beast::error_code ec) {
          if (!ec && generation == self->connect_generation_) {
            self->peer_timed_out_ = true;
            beast::error_code closing;
            self->lowest_layer().close(closing);  // the pending connect ends: on_connect
          }
        });
  }
  socket.async_connect(peer,
                       beast::bind_front_handler(&connection::on_connect, shared_from_this()));
}

void connection::on_connect(beast::error_code ec) {
  ++connect_generation_;  // this dial's timer, should it fire still, finds a newer generation
  connect_timer_.cancel();
  if (!ec && peer_timed_out_) {
    ec = net::error::timed_out;  // made as its deadline closed the socket
  }
  if (ec) {
    if (timed_out_ || aborted_) {
      fail(step::connect, ec);  // the exchange's deadline, or a shutdown: no other address
      return;
    }
    connect_error_ = peer_timed_out_ ? beast::error_code{net::error::timed_out} : ec;
    connect_next();
    return;
  }
  pool_->note_connection_opened();
  connected_at_ = std::chrono::steady_clock::now();
  // Header and body go out in one write anyway; this keeps small requests from waiting on
  // the peer's delayed ACK.
  beast::error_code ignored;
  lowest_layer().set_option(tcp::no_delay(true), ignored);
  if (tls_) {
    handshake();
    return;
  }
  connected_ = true;
  write();
}

void connection::handshake() {
  const std::string& host = pool_->target().host;
  SSL* ssl = tls_->native_handle();
  beast::error_code ec;
  const auto address = net::ip::make_address(host, ec);
  bool configured = false;
  if (ec) {
    // SNI names a host, never an address (RFC 6066); the certificate must match the name.
    // SSL_set_tlsext_host_name, spelled out: the macro's C cast trips -Wold-style-cast.
    configured = SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                          const_cast<char*>(host.c_str())) == 1 &&
                 SSL_set1_host(ssl, host.c_str()) == 1;
    SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  } else {
    // An IP literal must be an IP entry of the certificate's subjectAltName.
    configured =
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), address.to_string().c_str()) == 1;
  }
  if (!configured) {
    fail(step::handshake, net::error::invalid_argument);
    return;
  }
  tls_->async_handshake(net::ssl::stream_base::client,
                        beast::bind_front_handler(&connection::on_handshake, shared_from_this()));
}

void connection::on_handshake(beast::error_code ec) {
  if (ec) {
    fail(step::handshake, ec);
    return;
  }
  connected_ = true;
  write();
}

void connection::fresh_parser() {
  parser_.emplace();
  limit(*parser_, limits());
  parser_->keep_fields(&pool_->settings().kept_response_headers);
}

void connection::write() {
  fresh_parser();
  with_stream([this](auto& stream) {
    const auto& wire = *current_.message;
    const std::array<net::const_buffer, 2> bytes{net::buffer(wire.head),
                                                 net::buffer(wire.body.str())};
    net::async_write(stream, bytes,
                     beast::bind_front_handler(&connection::on_write, shared_from_this()));
  });
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
  with_stream([this](auto& stream) {
    beast_http::async_read_header(
        stream, buffer_, *parser_,
        beast::bind_front_handler(&connection::on_read_header, shared_from_this()));
  });
}

void connection::on_read_header(beast::error_code ec, std::size_t /*bytes*/) {
  if (read_failed(ec)) {
    return;
  }
  if (declares_too_large(*parser_, limits())) {
    // The head says so: too large even if a shutdown began once it was read.
    auto declared = facts(step::read, beast_http::error::body_limit);
    declared.aborted = false;
    end_with(declared);
    return;
  }
  if (!parser_->is_done() && buffer_.size() > 0) {
    // The body usually came in the same segment as the header: parse what the buffer holds
    // now (what the read below would do first), so an answer read in one go ends here
    // instead of through a second read operation and the post that completes it.
    parser_->eager(true);
    beast::error_code parsed;
    buffer_.consume(parser_->put(buffer_.data(), parsed));
    if (parsed == beast_http::error::need_more) {
      parsed = {};
    }
    if (read_failed(parsed)) {
      return;
    }
  }
  if (parser_->is_done()) {
    on_read({}, 0);
    return;
  }
  read_body();
}

void connection::read_body() {
  with_stream([this](auto& stream) {
    beast_http::async_read(stream, buffer_, *parser_,
                           beast::bind_front_handler(&connection::on_read, shared_from_this()));
  });
}

void connection::on_read(beast::error_code ec, std::size_t /*bytes*/) {
  if (read_failed(ec)) {
    return;
  }
  if (const int status = parser_->status(); status >= 100 && status < 200 && status != 101) {
    // An interim answer (100 Continue, 103 Early Hints), never the answer (RFC 9110 15.2: a
    // client takes one it did not ask for): the final one follows on this connection, maybe
    // already in the buffer. The exchange's deadline bounds how many there may be.
    answered_interim_ = true;
    fresh_parser();
    read_header();
    return;
  }
  response r;
  r.status = parser_->status();
  r.body = std::move(parser_->body());
  r.retry_after = parser_->retry_after();
  r.kept_headers = parser_->kept_fields();
  r.reused_connection = reused_;
  // After a 101 the server speaks another protocol on this connection (Beast's keep_alive()
  // does not look at Upgrade): it never carries another request.
  const bool reusable = parser_->keep_alive() && r.status != 101;
  finish(std::move(r), reusable);
}

bool connection::read_failed(beast::error_code ec) {
  if (!ec) {
    return false;
  }
  if (!retry_if_stale(ec)) {
    fail(step::read, ec);
  }
  return true;
}

void connection::keep_status(response& r) const {
  if (parser_ && parser_->is_header_done() && parser_->status() >= 200) {
    r.status = parser_->status();
    r.retry_after = parser_->retry_after();
    r.kept_headers = parser_->kept_fields();
  }
}

bool connection::retry_if_stale(beast::error_code ec) {
  // Only when nothing of the response arrived: then the server cannot have acted on a
  // request it closed on, and one fresh attempt is safe (the body also carries a key).
  const bool nothing_read = (!parser_ || !parser_->got_some()) && !answered_interim_;
  if (!reused_ || retried_ || aborted_ || timed_out_ || !nothing_read || !closed_by_peer(ec)) {
    return false;
  }
  retried_ = true;
  close();
  reused_ = false;
  resolve();
  return true;
}

failure_facts connection::facts(step where, beast::error_code ec) {
  const auto& settings = pool_->settings();
  failure_facts f;
  f.step = where;
  f.ec = ec;
  f.aborted = aborted_;
  f.timed_out = timed_out_;
  f.head_read = parser_ && parser_->is_header_done();
  f.target = to_string(pool_->target());
  f.certificate_verify = tls_ ? SSL_get_verify_result(tls_->native_handle()) : X509_V_OK;
  f.timeout = settings.timeout;
  f.max_response_bytes = settings.max_response_bytes;
  f.max_header_bytes = settings.max_header_bytes;
  f.read_buffer_bytes = buffer_.max_size();
  return f;
}

void connection::fail(step where, beast::error_code ec) { end_with(facts(where, ec)); }

void connection::end_with(const failure_facts& f) {
  response r;
  r.reused_connection = reused_;
  if (!f.aborted) {
    keep_status(r);  // a shutdown reports no answer
  }
  transport_failure failure = classify_failure(f);
  r.error = failure.error;
  r.error_message = std::move(failure.message);
  finish(std::move(r), /*reusable=*/false);
}

void connection::blocked(const std::string& why) {
  response r;
  r.error = transport_error::ssrf_blocked;
  r.error_message = "refused to connect to " + to_string(pool_->target()) + ": " + why +
                    " is not a public address (the route does not allow private targets)";
  finish(std::move(r), /*reusable=*/false);
}

void connection::finish(response r, bool reusable) {
  if (reusable) {
    answered_at_ = std::chrono::steady_clock::now();
    // Old enough: the next request resolves the host again (client_settings).
    reusable = answered_at_ - connected_at_ < pool_->settings().max_connection_age;
  }
  auto on_done = std::move(current_.on_done);
  current_ = exchange{};
  parser_.reset();
  busy_ = false;
  if (timed_out_) {
    reusable = false;  // the watchdog closed it
  }
  if (!reusable) {
    close();
    watchdog_.cancel();  // nothing left to watch: let go of this connection now
  }
  // Hand the connection back before on_done: a caller that posts again from on_done (or
  // right after it) then finds it idle instead of opening another one. From here on another
  // thread may start() this connection; what it starts runs after this handler returns.
  if (!pool_->release(shared_from_this(), reusable)) {
    close();
  }
  on_done(std::move(r));
}

void connection::close() {
  // A TLS connection is closed without close_notify: the response was read in full or the
  // connection is broken, and the server cannot tell the difference that would make.
  beast::error_code ignored;
  lowest_layer().shutdown(tcp::socket::shutdown_both, ignored);
  lowest_layer().close(ignored);
  connected_ = false;
  buffer_.consume(buffer_.size());
}

}  // namespace courier::http
