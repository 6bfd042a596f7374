#pragma once

// The admin HTTP listener: a small Boost.Beast server on its own thread and io_context, so a
// scrape never shares a thread with delivery. Serves what a handler answers (endpoints.hpp), on
// two handler threads of its own: one for /healthz, /readyz and /metrics, one for the rest
// (admin_lane), so a probe never waits behind a slow command. The Authorization header reaches
// the handler and nothing else: the listener logs no request.
//
// Bounded for anyone who can reach the port (session.hpp has the figures): a request is
// read into a buffer with a maximum, at most 64 connections are kept and at most 8 of them from
// one remote address, an idle kept-alive connection is closed after 5 s or when a newer
// connection needs its slot, and a connection that finds every slot busy is answered 503.

#include <cstdint>
#include <functional>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/config/config.hpp"
#include "core/http/io_runner.hpp"
#include "admin/exchange.hpp"
#include "admin/slots.hpp"

namespace courier::admin {

using admin_handler = std::function<admin_reply(const admin_request& request)>;

class admin_acceptor;

class admin_listener {
 public:
  // At most `total` connections at once, at most `per_peer` of them from one remote address:
  // a scraper, a probe and a few curls use a few, and anyone who can reach the port must not be
  // able to take the descriptors delivery needs, nor every slot from one address.
  static constexpr admin_slot_limits slot_limits{64, 8};

  // Binds and listens (connections wait in the backlog until serve()). Throws config_error with
  // the key "admin.listen" when the address is not one or cannot be bound (port in use).
  explicit admin_listener(const listen_address& where);
  ~admin_listener();  // stop()

  admin_listener(const admin_listener&) = delete;
  admin_listener& operator=(const admin_listener&) = delete;

  // The bound port (the one the system picked for port 0).
  [[nodiscard]] std::uint16_t port() const { return port_; }

  // Starts accepting; each request's answer comes from `handler`, on the listener's thread.
  void serve(admin_handler handler);

  // Closes the listener and every connection and joins the thread. Idempotent.
  void stop();

 private:
  http::io_runner io_{1};
  // The handlers' threads (admin_lane); after io_, so they are joined first.
  http::io_runner monitoring_lane_{1};
  http::io_runner command_lane_{1};
  std::shared_ptr<admin_acceptor> acceptor_;
  std::uint16_t port_ = 0;
};

// admin.listen: nothing for "off", else a bound listener (throws config_error as above).
std::optional<admin_listener> open_admin_listener(const admin_config& cfg);

}  // namespace courier::admin
