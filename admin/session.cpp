#include "admin/session.hpp"

#include <algorithm>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "core/version.hpp"
#include "admin/lane.hpp"

namespace courier::admin {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

namespace {

// The answer to a request that could not be read, or nothing when there is nobody to answer
// (the client closed, went idle past the deadline, or the socket failed): 431 for headers over
// admin_max_header_bytes, 413 for a body over admin_max_body_bytes, 400 for anything else
// HTTP's parser refused, a buffer overflow included (a chunk line or trailer that never ends).
// A client told why does not retry the same request blindly.
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

// Reads and drops what a client still sends after an answer that closes (linger_and_close).
class lingering : public std::enable_shared_from_this<lingering> {
 public:
  lingering(beast::tcp_stream& stream, std::shared_ptr<void> keep)
      : stream_(stream), keep_(std::move(keep)) {}

  void run() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(admin_linger_timeout);
    drop_incoming();
  }

 private:
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

  beast::tcp_stream& stream_;
  std::shared_ptr<void> keep_;  // owns stream_
  std::array<char, 4096> dropped_{};
};

// A connection that got no slot.
class refusal : public std::enable_shared_from_this<refusal> {
 public:
  refusal(tcp::socket&& socket, std::shared_ptr<admin_connections> shared)
      : stream_(std::move(socket)), shared_(std::move(shared)) {
    ++shared_->refusing;
  }
  ~refusal() { --shared_->refusing; }
  refusal(const refusal&) = delete;
  refusal& operator=(const refusal&) = delete;
  refusal(refusal&&) = delete;
  refusal& operator=(refusal&&) = delete;

  void run() {
    response_.version(11);
    response_.result(beast_http::status::service_unavailable);
    response_.set(beast_http::field::server, courier::user_agent);
    response_.set(beast_http::field::content_type, "text/plain; charset=utf-8");
    response_.set(beast_http::field::cache_control, "no-store");
    response_.set(beast_http::field::retry_after, "1");
    response_.keep_alive(false);
    response_.body() = "every admin connection is busy; try again\n";
    response_.prepare_payload();
    stream_.expires_after(admin_linger_timeout);
    beast_http::async_write(stream_, response_,
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (ec) {
                                self->stream_.close();
                                return;
                              }
                              linger_and_close(self->stream_, self);
                            });
  }

 private:
  beast::tcp_stream stream_;
  beast_http::response<beast_http::string_body> response_;
  std::shared_ptr<admin_connections> shared_;
};

}  // namespace

void linger_and_close(beast::tcp_stream& stream, std::shared_ptr<void> keep) {
  std::make_shared<lingering>(stream, std::move(keep))->run();
}

void refuse_at_capacity(tcp::socket&& socket, std::shared_ptr<admin_connections> shared) {
  if (shared->refusing >= admin_max_refusing) {
    beast::error_code ignored;
    socket.close(ignored);
    return;
  }
  std::make_shared<refusal>(std::move(socket), std::move(shared))->run();
}

admin_session::admin_session(tcp::socket&& socket, std::shared_ptr<admin_connections> shared,
                             admin_slot_id slot)
    : stream_(std::move(socket)),
      strand_(stream_.get_executor()),
      shared_(std::move(shared)),
      slot_(slot) {}

admin_session::~admin_session() {
  shared_->sessions.erase(slot_);
  shared_->slots.release(slot_);
}

void admin_session::run() {
  net::dispatch(strand_,
                beast::bind_front_handler(&admin_session::read_request, shared_from_this()));
}

void admin_session::evict() {
  evicted_ = true;
  close();
}

void admin_session::await_request() {
  if (buffer_.size() > 0) {
    // The next request came with the last one (pipelined): no idle time in between.
    read_request();
    return;
  }
  shared_->slots.idle(slot_);
  stream_.expires_after(admin_idle_keep_alive);
  const std::size_t room = std::min<std::size_t>(512, buffer_.max_size() - buffer_.size());
  stream_.async_read_some(
      buffer_.prepare(room),
      beast::bind_front_handler(&admin_session::on_request_bytes, shared_from_this()));
}

void admin_session::on_request_bytes(beast::error_code ec, std::size_t bytes) {
  if (evicted_) {
    return;  // its slot is another connection's now
  }
  if (ec) {
    close();  // the client closed, or stayed idle past admin_idle_keep_alive
    return;
  }
  buffer_.commit(bytes);
  shared_->slots.busy(slot_);
  read_request();
}

void admin_session::read_request() {
  parser_.emplace();
  parser_->header_limit(admin_max_header_bytes);
  parser_->body_limit(admin_max_body_bytes);
  stream_.expires_after(admin_request_deadline);
  beast_http::async_read(stream_, buffer_, *parser_,
                         beast::bind_front_handler(&admin_session::on_read, shared_from_this()));
}

void admin_session::on_read(beast::error_code ec, std::size_t /*bytes*/) {
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
  asked_ = asked{std::string{req.method_string()},
                 std::string{req.target()},
                 std::string{authorization},
                 req.version(),
                 req.keep_alive(),
                 req.method() == beast_http::verb::head};
  parser_.reset();
  dispatch_to_handler();
}

void admin_session::dispatch_to_handler() {
  auto& lane =
      lane_of(asked_.target) == admin_lane::monitoring ? shared_->monitoring : shared_->command;
  // The handler may block (a pause waits for the route's consumer): it runs on its lane's
  // thread, never on the listener's, which keeps reading and answering the other connections.
  // asked_ is not touched on the strand until the answer comes back.
  net::post(lane, [self = shared_from_this()]() mutable {
    admin_reply reply = (*self->shared_->handler)(
        admin_request{self->asked_.method, self->asked_.target, self->asked_.authorization});
    auto strand = self->strand_;
    net::post(strand, [self = std::move(self), reply = std::move(reply)]() mutable {
      self->answer(std::move(reply));
    });
  });
}

void admin_session::answer(admin_reply reply) {
  response_ = {};
  response_.version(asked_.version);
  response_.result(static_cast<unsigned>(reply.status));
  response_.set(beast_http::field::server, courier::user_agent);
  response_.set(beast_http::field::content_type, reply.content_type);
  response_.set(beast_http::field::cache_control, "no-store");
  for (const auto& [name, value] : reply.headers) {
    response_.set(name, value);
  }
  response_.keep_alive(asked_.keep_alive);
  if (asked_.head) {
    response_.prepare_payload();
    response_.content_length(reply.body.size());
  } else {
    response_.body() = std::move(reply.body);
    response_.prepare_payload();
  }
  stream_.expires_after(admin_request_deadline);
  beast_http::async_write(stream_, response_,
                          beast::bind_front_handler(&admin_session::on_write, shared_from_this()));
}

void admin_session::on_write(beast::error_code ec, std::size_t /*bytes*/) {
  if (ec || response_.need_eof()) {
    close();
    return;
  }
  await_request();
}

void admin_session::refuse(beast_http::status status, const std::string& why) {
  response_ = {};
  response_.version(11);
  response_.result(status);
  response_.set(beast_http::field::server, courier::user_agent);
  response_.set(beast_http::field::content_type, "text/plain; charset=utf-8");
  response_.set(beast_http::field::cache_control, "no-store");
  response_.keep_alive(false);
  response_.body() = why + "\n";
  response_.prepare_payload();
  stream_.expires_after(admin_request_deadline);
  beast_http::async_write(stream_, response_,
                          [self = shared_from_this()](beast::error_code ec, std::size_t) {
                            if (ec) {
                              self->close();
                              return;
                            }
                            linger_and_close(self->stream_, self);
                          });
}

void admin_session::close() {
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  stream_.close();
}

}  // namespace courier::admin
