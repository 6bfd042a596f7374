#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>

#include "core/http/client_defaults.hpp"
#include "core/http/endpoint.hpp"
#include "core/http/poster.hpp"
#include "core/http/tls_context.hpp"
#include "core/model/transport_error.hpp"
#include "core/model/payload.hpp"
#include "core/version.hpp"

namespace courier::http {

struct client_settings {
  // Upper bound of open connections (busy + idle) to the endpoint; more requests queue.
  std::size_t max_connections = defaults::max_connections;
  // Per request, measured from post(): time waiting for a free connection counts, then
  // resolve + connect + write + read. So on_done always comes about `timeout` after post()
  // at the latest, whatever the pool is doing, which is what a delivery deadline needs.
  std::chrono::milliseconds timeout = defaults::timeout;
  // Each resolved address is given this long to accept the connection (within `timeout`):
  // one that does not answer (a dead address that drops SYNs) gives way to the next address
  // instead of holding the request until its deadline. 0: only `timeout` bounds a connect.
  std::chrono::milliseconds connect_timeout = defaults::connect_timeout;
  // Larger bodies end the request with transport_error::response_too_large.
  std::size_t max_response_bytes = defaults::max_response_bytes;
  // Longer status lines plus headers end it the same way (a hostile or broken server cannot
  // make the client buffer more than this before the body).
  std::uint32_t max_header_bytes = defaults::max_header_bytes;
  std::string user_agent = courier::user_agent;
  // The SSRF guard: false refuses every resolved address in a reserved range (address_guard)
  // and connects only to the others; an endpoint with none left ends with ssrf_blocked.
  bool allow_private_targets = false;
  // For an https:// endpoint: what the peer is verified against, and the client identity.
  tls_settings tls;
  // A kept-alive connection idle at least this long is checked for bytes that arrived
  // unasked (an unsolicited response, a close_notify) before it carries the next request, and
  // is replaced if it has any; bytes read ahead with the last answer are always checked. The
  // check is a syscall (FIONREAD), so a connection reused sooner is not asked: no HTTP server
  // closes a kept-alive connection that soon, and one that did (FIN or RST) is caught by the
  // one transparent retry of a reused connection that read nothing. 0 checks every reuse.
  std::chrono::milliseconds idle_check_after{100};
  // A connection that has been open this long is closed after its current answer instead of
  // going back to the pool, so the next one resolves the host again: a partner that moves to
  // other addresses (a DNS failover, a new load balancer) while the old ones still answer gets
  // the traffic within this long. 0: every connection carries one request.
  std::chrono::milliseconds max_connection_age = defaults::max_connection_age;
  // Answer header fields to hand back with the response (routes[].receipts.response_headers).
  std::vector<std::string> kept_response_headers;
  // Replaces the system resolver (tests: a name that resolves to chosen addresses without
  // DNS). Runs on an io thread; an empty result or an exception is a DNS failure.
  std::function<std::vector<boost::asio::ip::address>(const std::string& host)> resolver;
};

struct request {
  courier::payload body;  // sent byte for byte, shared with the record (never copied)
  std::string content_type = "application/json";
  // Sent after the defaults; a name that is already set (Host, User-Agent, Content-Type)
  // is replaced, and a repeated name keeps its last value.
  std::vector<std::pair<std::string, std::string>> headers;
};

struct response {
  // 0 when no final answer's headers were read whole; with an error, the answer whose body
  // could not be read (longer than max_response_bytes, cut off, too slow).
  int status = 0;
  courier::transport_error error = courier::transport_error::none;
  std::string error_message;  // empty on success
  std::string body;           // at most max_response_bytes
  std::optional<std::string> retry_after;
  // The fields client_settings::kept_response_headers names that the answer had.
  std::vector<std::pair<std::string, std::string>> kept_headers;
  bool reused_connection = false;  // sent over a kept-alive connection
};

class connection_pool;

// POSTs to one endpoint over a bounded keep-alive pool, plain for http://, TLS for https://
// (verified, never downgraded).
class client : public poster {
 public:
  // Builds the TLS context of an https:// endpoint once, here. Throws tls_setup_error (a
  // std::invalid_argument) for TLS settings that cannot work, std::invalid_argument for
  // other settings that cannot work (max_connections or timeout of zero). `ioc` must be run
  // by one thread (an io_runner with its default of one): the connections share no strand.
  client(boost::asio::io_context& ioc, const endpoint& ep, const client_settings& s);
  // The connections split over several io_contexts (io_threads), each run by one thread:
  // max_connections in all, as evenly as they go (no more contexts are used than there are
  // connections). Each request goes to the first context with a free connection, so a load
  // that one thread's share carries stays on that thread (measured: spreading a paced load
  // over two threads woke both for fewer requests each and cost the machine CPU); only when
  // every share is busy does it queue where the fewest are outstanding.
  client(const std::vector<boost::asio::io_context*>& contexts, const endpoint& ep,
         const client_settings& s);
  // Shuts down. Destroy the client before its io_context.
  ~client() override;

  client(const client&) = delete;
  client& operator=(const client&) = delete;

  // Thread-safe. on_done runs on an io thread exactly once (unless the io_context is
  // stopped first). Redirects are never followed: a 3xx is returned like any status.
  // Throws std::invalid_argument (and sends nothing) if a header name or value contains
  // CR, LF or NUL, which would let a value inject headers.
  void post(request r, std::function<void(response)> on_done) override;

  // TCP connections established so far (a kept-alive connection counts once; a TLS one counts
  // when its TCP connection is up, before the handshake).
  std::size_t connections_opened() const;
  std::size_t idle_connections() const;

  // Closes every connection; queued and in-flight requests end with transport_error::reset
  // ("client shut down"), later posts too. Idempotent.
  void shutdown();

 private:
  // The first pool with a free connection, else the one with the fewest exchanges outstanding.
  connection_pool& pick_pool() const;

  std::vector<std::shared_ptr<connection_pool>> pools_;
};

}  // namespace courier::http
