#pragma once

// One connection of the admin listener (admin_listener.hpp), and the state its connections
// share: the slot book (slots.hpp), the handler and the handler threads. Everything here runs
// on the listener's strand except the handler, which runs on its lane's thread (lane.hpp).

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "admin/exchange.hpp"
#include "admin/listener.hpp"
#include "admin/slots.hpp"

namespace courier::admin {

// -- limits ---

// From a new connection's accept (or an idle connection's first byte) to the request read
// whole, and for writing its answer.
inline constexpr std::chrono::seconds admin_request_deadline{10};
// Between two requests on a kept-alive connection; a scraper (every 15 s by default) makes its
// connection again. An idle connection also gives its slot to a newer one when every slot is
// taken (admin_slots).
inline constexpr std::chrono::seconds admin_idle_keep_alive{5};
// How long a refused connection is read from (and what arrives dropped) before it is closed.
inline constexpr std::chrono::seconds admin_linger_timeout{1};
inline constexpr std::uint32_t admin_max_header_bytes = 8 * 1024;
inline constexpr std::uint64_t admin_max_body_bytes = std::uint64_t{8} * 1024;
// The read buffer's maximum. Beast counts only chunk sizes against the body limit, so without
// it a chunk line whose extension never ends, or a trailer that never ends, grows the buffer
// until the deadline; with it the read fails (400) once this much is buffered unparsed.
inline constexpr std::size_t admin_max_buffer_bytes =
    admin_max_header_bytes + admin_max_body_bytes + 1024;
// Connections answered 503 (and lingering) at once; more are closed without an answer.
inline constexpr std::size_t admin_max_refusing = 16;

class admin_session;

// What the listener's connections share. Touched on the listener's strand only.
struct admin_connections {
  // The two handler lanes, distinct by role (probes, commands).
  // NOLINTBEGIN(bugprone-easily-swappable-parameters)
  admin_connections(admin_slot_limits limits, std::shared_ptr<const admin_handler> h,
                    boost::asio::io_context& monitoring_lane, boost::asio::io_context& command_lane)
      : slots(limits), handler(std::move(h)), monitoring(monitoring_lane), command(command_lane) {}
  // NOLINTEND(bugprone-easily-swappable-parameters)

  admin_slots slots;
  std::unordered_map<admin_slot_id, std::weak_ptr<admin_session>> sessions;
  std::size_t refusing = 0;
  std::shared_ptr<const admin_handler> handler;
  boost::asio::io_context& monitoring;  // the thread of admin_lane::monitoring
  boost::asio::io_context& command;     // the thread of admin_lane::command
};

class admin_session : public std::enable_shared_from_this<admin_session> {
 public:
  admin_session(boost::asio::ip::tcp::socket&& socket, std::shared_ptr<admin_connections> shared,
                admin_slot_id slot);
  ~admin_session();
  admin_session(const admin_session&) = delete;
  admin_session& operator=(const admin_session&) = delete;
  admin_session(admin_session&&) = delete;
  admin_session& operator=(admin_session&&) = delete;

  // Reads the first request. On the listener's strand, as everything below but the handler.
  void run();
  // An idle connection whose slot went to a newer one: closed without an answer (a client may
  // close an idle kept-alive connection at any time, and so may a server).
  void evict();

 private:
  // -- one exchange ---

  // Idle: waits up to admin_idle_keep_alive for the next request's first bytes.
  void await_request();
  void on_request_bytes(boost::beast::error_code ec, std::size_t bytes);
  // Busy: reads one request whole within admin_request_deadline.
  void read_request();
  void on_read(boost::beast::error_code ec, std::size_t bytes);
  // Runs the handler on the request's lane, then answers on the strand.
  void dispatch_to_handler();
  void answer(admin_reply reply);
  void on_write(boost::beast::error_code ec, std::size_t bytes);

  // -- refusing and closing ---

  // Answers `status` with `why` as the body and closes: what follows an unreadable request on
  // the connection cannot be told apart from it.
  void refuse(boost::beast::http::status status, const std::string& why);
  void close();

  struct asked {
    std::string method;
    std::string target;
    std::string authorization;
    unsigned version = 11;
    bool keep_alive = false;
    bool head = false;
  };

  boost::beast::tcp_stream stream_;
  boost::asio::any_io_executor strand_;  // the stream's: where the handler's answer comes back
  boost::beast::flat_buffer buffer_{admin_max_buffer_bytes};
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  boost::beast::http::response<boost::beast::http::string_body> response_;
  asked asked_;
  std::shared_ptr<admin_connections> shared_;
  admin_slot_id slot_;
  bool evicted_ = false;
};

// Answers a connection that got no slot with 503, Retry-After: 1 and Connection: close, reads
// and drops what it sends for at most admin_linger_timeout, and closes it.
void refuse_at_capacity(boost::asio::ip::tcp::socket&& socket,
                        std::shared_ptr<admin_connections> shared);

// After an answer that closes the connection the client may still be sending; closing with it
// unread would reset the connection, and the client could lose the answer before reading it.
// So the sending side closes first and what arrives is read and dropped until the client
// closes too, for at most admin_linger_timeout. `keep` lives until then.
void linger_and_close(boost::beast::tcp_stream& stream, std::shared_ptr<void> keep);

}  // namespace courier::admin
