#include "topology/admin_listener.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/system/system_error.hpp>

#include "core/log/json_log.hpp"
#include "core/version.hpp"

namespace courier::topology {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

namespace {

// Between two scrapes (15 s by default) a kept-alive connection is closed and made again:
// an idle client holds one of the process's file descriptors, which Kafka and the webhook
// connections share, for at most this long.
constexpr std::chrono::seconds idle_timeout{10};
// More connections at once are closed as they arrive: anyone who can reach the port must not
// be able to take the descriptors delivery needs (a scraper, a probe and a few curls use a few).
constexpr int max_sessions = 64;
// After a failed accept (EMFILE: the process is out of descriptors) the pending connection is
// still queued; accepting again at once would fail again at once, a busy loop.
constexpr std::chrono::milliseconds accept_retry{100};
// How long a refused connection is read from (and what arrives dropped) before it is closed.
constexpr std::chrono::seconds linger_timeout{1};
constexpr std::uint32_t max_header_bytes = 8 * 1024;
constexpr std::uint64_t max_body_bytes = std::uint64_t{8} * 1024;

// The answer to a request that could not be read, or nothing when there is nobody to answer
// (the client closed, went idle past the timeout, or the socket failed): 431 for headers over
// max_header_bytes, 413 for a body over max_body_bytes, 400 for anything else HTTP's parser
// refused. A client told why does not retry the same request blindly.
std::optional<beast_http::status> answer_to_unreadable(const beast::error_code& ec) {
  if (ec == beast_http::error::header_limit) {
    return beast_http::status::request_header_fields_too_large;
  }
  if (ec == beast_http::error::body_limit) {
    return beast_http::status::payload_too_large;
  }
  if (ec == beast_http::error::end_of_stream || ec == beast_http::error::partial_message ||
      ec.category() != beast_http::make_error_code(beast_http::error::bad_target).category()) {
    return std::nullopt;
  }
  return beast_http::status::bad_request;
}

class admin_session : public std::enable_shared_from_this<admin_session> {
 public:
  admin_session(tcp::socket&& socket, std::shared_ptr<const admin_handler> handler,
                std::shared_ptr<std::atomic<int>> open_sessions)
      : stream_(std::move(socket)),
        handler_(std::move(handler)),
        open_sessions_(std::move(open_sessions)) {
    ++*open_sessions_;
  }
  ~admin_session() { --*open_sessions_; }
  admin_session(const admin_session&) = delete;
  admin_session& operator=(const admin_session&) = delete;
  admin_session(admin_session&&) = delete;
  admin_session& operator=(admin_session&&) = delete;

  void run() {
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&admin_session::read, shared_from_this()));
  }

 private:
  void read() {
    parser_.emplace();
    parser_->header_limit(max_header_bytes);
    parser_->body_limit(max_body_bytes);
    stream_.expires_after(idle_timeout);
    beast_http::async_read(stream_, buffer_, *parser_,
                           beast::bind_front_handler(&admin_session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t /*bytes*/) {
    if (ec) {
      if (const auto status = answer_to_unreadable(ec)) {
        refuse(*status, ec.message());
      } else {
        close();
      }
      return;
    }
    const auto& req = parser_->get();
    const auto authorization = req[beast_http::field::authorization];
    const admin_reply reply = (*handler_)(
        admin_request{std::string_view{req.method_string().data(), req.method_string().size()},
                      std::string_view{req.target().data(), req.target().size()},
                      std::string_view{authorization.data(), authorization.size()}});
    response_ = {};
    response_.version(req.version());
    response_.result(static_cast<unsigned>(reply.status));
    response_.set(beast_http::field::server, courier::user_agent);
    response_.set(beast_http::field::content_type, reply.content_type);
    response_.set(beast_http::field::cache_control, "no-store");
    for (const auto& [name, value] : reply.headers) {
      response_.set(name, value);
    }
    response_.keep_alive(req.keep_alive());
    if (req.method() != beast_http::verb::head) {
      response_.body() = reply.body;
    }
    response_.prepare_payload();
    if (req.method() == beast_http::verb::head) {
      response_.content_length(reply.body.size());
    }
    stream_.expires_after(idle_timeout);
    beast_http::async_write(
        stream_, response_,
        beast::bind_front_handler(&admin_session::on_write, shared_from_this()));
  }

  // Answers `status` with `why` as the body and closes: what follows an unreadable request on
  // the connection cannot be told apart from it.
  void refuse(beast_http::status status, const std::string& why) {
    response_ = {};
    response_.version(11);
    response_.result(status);
    response_.set(beast_http::field::server, courier::user_agent);
    response_.set(beast_http::field::content_type, "text/plain; charset=utf-8");
    response_.set(beast_http::field::cache_control, "no-store");
    response_.keep_alive(false);
    response_.body() = why + "\n";
    response_.prepare_payload();
    stream_.expires_after(idle_timeout);
    beast_http::async_write(stream_, response_,
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (ec) {
                                self->close();
                                return;
                              }
                              self->linger();
                            });
  }

  // After a refusal the client may still be sending what was refused; closing with it unread
  // would reset the connection, and the client could lose the answer before reading it. So the
  // sending side closes first and what arrives is read and dropped until the client closes
  // too, for at most linger_timeout.
  void linger() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(linger_timeout);
    drop_incoming();
  }

  void drop_incoming() {
    stream_.async_read_some(net::buffer(dropped_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (ec) {
                                self->stream_.close();
                                return;
                              }
                              self->drop_incoming();
                            });
  }

  void on_write(beast::error_code ec, std::size_t /*bytes*/) {
    if (ec || response_.need_eof()) {
      close();
      return;
    }
    read();
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::array<char, 4096> dropped_{};
  std::optional<beast_http::request_parser<beast_http::string_body>> parser_;
  beast_http::response<beast_http::string_body> response_;
  std::shared_ptr<const admin_handler> handler_;
  std::shared_ptr<std::atomic<int>> open_sessions_;
};

std::string printable(const listen_address& where) {
  return where.host.find(':') != std::string::npos
             ? "[" + where.host + "]:" + std::to_string(where.port)
             : where.host + ":" + std::to_string(where.port);
}

}  // namespace

class admin_acceptor : public std::enable_shared_from_this<admin_acceptor> {
 public:
  explicit admin_acceptor(net::io_context& ioc)
      : ioc_(ioc), acceptor_(net::make_strand(ioc)), retry_(acceptor_.get_executor()) {}

  std::uint16_t bind(const tcp::endpoint& where) {
    acceptor_.open(where.protocol());
    // A restarted courier gets its port back while old connections sit in TIME_WAIT; a port
    // another process listens on still fails.
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(where);
    acceptor_.listen(net::socket_base::max_listen_connections);
    return acceptor_.local_endpoint().port();
  }

  void serve(admin_handler handler) {
    handler_ = std::make_shared<const admin_handler>(std::move(handler));
    net::dispatch(acceptor_.get_executor(),
                  beast::bind_front_handler(&admin_acceptor::accept, shared_from_this()));
  }

  void close() {
    net::dispatch(acceptor_.get_executor(), [self = shared_from_this()] {
      beast::error_code ignored;
      self->acceptor_.close(ignored);
      self->retry_.cancel();
    });
  }

 private:
  void accept() {
    acceptor_.async_accept(
        net::make_strand(ioc_),
        beast::bind_front_handler(&admin_acceptor::on_accept, shared_from_this()));
  }

  void on_accept(beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted || !acceptor_.is_open()) {
      return;
    }
    if (ec) {
      if (!accept_failing_) {
        log::warn("admin listener cannot accept a connection; retrying every 100 ms",
                  {{"error", ec.message()}});
        accept_failing_ = true;
      }
      retry_.expires_after(accept_retry);
      retry_.async_wait([self = shared_from_this()](beast::error_code wait_ec) {
        if (!wait_ec && self->acceptor_.is_open()) {
          self->accept();
        }
      });
      return;
    }
    accept_failing_ = false;
    if (*open_sessions_ >= max_sessions) {
      if (!at_capacity_) {
        log::warn("admin listener at its connection limit; closing new connections",
                  {{"max_connections", max_sessions}});
        at_capacity_ = true;
      }
      beast::error_code ignored;
      socket.close(ignored);
    } else {
      if (*open_sessions_ < max_sessions / 2) {
        at_capacity_ = false;  // the next time at the limit is logged again
      }
      std::make_shared<admin_session>(std::move(socket), handler_, open_sessions_)->run();
    }
    accept();
  }

  net::io_context& ioc_;
  tcp::acceptor acceptor_;
  net::steady_timer retry_;
  std::shared_ptr<const admin_handler> handler_;
  std::shared_ptr<std::atomic<int>> open_sessions_ = std::make_shared<std::atomic<int>>(0);
  bool accept_failing_ = false;  // logged once per run of failures
  bool at_capacity_ = false;     // logged once until the sessions fall to half the limit
};

admin_listener::admin_listener(const listen_address& where)
    : acceptor_(std::make_shared<admin_acceptor>(io_.context())) {
  const std::string printed = printable(where);
  try {
    // localhost resolves without a lookup: the admin listener is loopback unless told otherwise.
    const auto address = where.host == "localhost" ? net::ip::make_address("127.0.0.1")
                                                   : net::ip::make_address(where.host);
    port_ = acceptor_->bind(tcp::endpoint{address, where.port});
  } catch (const boost::system::system_error& e) {
    io_.stop();
    throw config_error{"admin.listen", "cannot listen on " + printed + ": " + e.code().message()};
  }
}

admin_listener::~admin_listener() { stop(); }

void admin_listener::serve(admin_handler handler) { acceptor_->serve(std::move(handler)); }

void admin_listener::stop() {
  acceptor_->close();
  // Destroying pending handlers with the io_context closes the sessions' sockets.
  io_.stop();
}

std::optional<admin_listener> open_admin_listener(const admin_config& cfg) {
  if (cfg.listen == "off") {
    return std::nullopt;
  }
  const auto where = parse_listen_address(cfg.listen);
  if (!where) {
    throw config_error{"admin.listen", "expected \"off\" or HOST:PORT, got \"" + cfg.listen + "\""};
  }
  return std::optional<admin_listener>{std::in_place, *where};
}

}  // namespace courier::topology
