#include "admin/listener.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/system/system_error.hpp>

#include "core/log/json_log.hpp"
#include "admin/session.hpp"

namespace courier::admin {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = boost::asio::ip::tcp;

namespace {

// After a failed accept (EMFILE: the process is out of descriptors) the pending connection is
// still queued; accepting again at once would fail again at once, a busy loop.
constexpr std::chrono::milliseconds accept_retry{100};

std::string printable(const listen_address& where) {
  return where.host.find(':') != std::string::npos
             ? "[" + where.host + "]:" + std::to_string(where.port)
             : where.host + ":" + std::to_string(where.port);
}

}  // namespace

class admin_acceptor : public std::enable_shared_from_this<admin_acceptor> {
 public:
  // The listener's context and the two handler lanes, distinct by role.
  // NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
  admin_acceptor(net::io_context& ioc, net::io_context& monitoring_lane,
                 net::io_context& command_lane)
      : acceptor_(net::make_strand(ioc)),
        retry_(acceptor_.get_executor()),
        monitoring_lane_(monitoring_lane),
        command_lane_(command_lane) {}

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
    shared_ = std::make_shared<admin_connections>(
        admin_listener::slot_limits, std::make_shared<const admin_handler>(std::move(handler)),
        monitoring_lane_, command_lane_);
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
    // Every connection runs on the acceptor's strand: the slot book has one writer at a time.
    acceptor_.async_accept(
        acceptor_.get_executor(),
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
    admit(std::move(socket));
    accept();
  }

  void admit(tcp::socket socket) {
    beast::error_code peer_ec;
    const auto peer = socket.remote_endpoint(peer_ec);
    if (peer_ec) {
      return;  // gone already; the socket closes with this scope
    }
    const admission a = shared_->slots.admit(peer.address().to_string());
    switch (a.what) {
      case admission::verdict::admitted: {
        if (a.evicted) {
          const auto victim = shared_->sessions.find(*a.evicted);
          if (victim != shared_->sessions.end()) {
            if (const auto session = victim->second.lock()) {
              session->evict();
            }
            shared_->sessions.erase(victim);
          }
        }
        if (shared_->slots.open() < admin_listener::slot_limits.total / 2) {
          at_capacity_ = false;  // the next refusal is logged again
        }
        auto session = std::make_shared<admin_session>(std::move(socket), shared_, a.slot);
        shared_->sessions.emplace(a.slot, session);
        session->run();
        return;
      }
      case admission::verdict::peer_busy:
      case admission::verdict::all_busy:
        break;
    }
    if (!at_capacity_) {
      const auto& counts = shared_->slots.counts();
      log::warn("admin listener refuses a connection with 503: its slots are busy",
                {{"peer_busy", a.what == admission::verdict::peer_busy},
                 {"max_connections", admin_listener::slot_limits.total},
                 {"max_connections_per_peer", admin_listener::slot_limits.per_peer},
                 {"refused_so_far", counts.refused_peer_busy + counts.refused_all_busy}});
      at_capacity_ = true;
    }
    refuse_at_capacity(std::move(socket), shared_);
  }

  tcp::acceptor acceptor_;
  net::steady_timer retry_;
  net::io_context& monitoring_lane_;
  net::io_context& command_lane_;
  std::shared_ptr<admin_connections> shared_;
  bool accept_failing_ = false;  // logged once per run of failures
  bool at_capacity_ = false;     // logged once until the slots fall to half the limit
};

admin_listener::admin_listener(const listen_address& where)
    : acceptor_(std::make_shared<admin_acceptor>(io_.context(), monitoring_lane_.context(),
                                                 command_lane_.context())) {
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
  // Destroying pending handlers with the io_context closes the sessions' sockets. A handler
  // still running on a lane is waited for (each is bounded: admin_routes.hpp).
  io_.stop();
  monitoring_lane_.stop();
  command_lane_.stop();
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

}  // namespace courier::admin
