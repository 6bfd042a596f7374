#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "core/http/client.hpp"
#include "core/http/endpoint.hpp"
#include "core/http/exchange.hpp"

namespace courier::http {

class connection;

// The shared state behind `client`: idle connections (LIFO, so the warmest one is reused and
// the rest can be closed by the server), the count of open ones, and a FIFO queue for
// requests that find every connection busy. Connections hold it alive while they run.
class connection_pool : public std::enable_shared_from_this<connection_pool> {
 public:
  // `tls` is the endpoint's context when it is https://, null for http://. `s` holds this
  // pool's share of the client's connections; `client_connections` is the client's total, for
  // errors (a request queues only when every pool of its client is full).
  connection_pool(boost::asio::io_context& ioc, endpoint ep, client_settings s,
                  std::shared_ptr<boost::asio::ssl::context> tls, std::size_t client_connections);

  void submit(exchange ex);

  // Exchanges submitted and not yet handed back (queued or on a connection): how loaded this
  // pool is, for a client that spreads its requests over several pools.
  std::size_t outstanding() const { return outstanding_.load(std::memory_order_relaxed); }

  // Called by `conn` on the io thread when its exchange is done, before the caller's on_done
  // runs, so that the next request of a sequential caller finds the connection idle.
  // Returns whether the connection stays open (idle or with the next queued request).
  bool release(const std::shared_ptr<connection>& conn, bool reusable);

  void note_connection_opened() { opened_.fetch_add(1, std::memory_order_relaxed); }
  std::size_t connections_opened() const { return opened_.load(std::memory_order_relaxed); }
  std::size_t idle_connections() const;
  void shutdown();

  boost::asio::io_context& context() { return ioc_; }
  const endpoint& target() const { return endpoint_; }
  const client_settings& settings() const { return settings_; }
  boost::asio::ssl::context* tls_context() const { return tls_.get(); }

 private:
  // One timer for the whole queue, at its front's deadline (deadlines grow in queue order:
  // every request gets the same timeout from its post), not one per queued request. Only the
  // chain started by arm_queue_timer touches it, on an io thread, one step at a time.
  void arm_queue_timer();
  void on_queue_timer();
  void complete_later(exchange ex, response r);
  // Requires mutex_; the connection is counted as busy.
  std::shared_ptr<connection> open_connection();

  boost::asio::io_context& ioc_;
  const endpoint endpoint_;
  const client_settings settings_;
  const std::shared_ptr<boost::asio::ssl::context> tls_;
  const std::size_t client_connections_;
  std::atomic<std::size_t> opened_{0};
  std::atomic<std::size_t> outstanding_{0};

  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<connection>> idle_;
  std::unordered_map<const connection*, std::weak_ptr<connection>> busy_;
  std::deque<exchange> queue_;
  std::size_t open_ = 0;  // idle + busy, never above settings_.max_connections
  boost::asio::steady_timer queue_timer_;
  bool queue_timer_armed_ = false;  // a chain of arm_queue_timer / on_queue_timer is running
  bool shut_down_ = false;
};

}  // namespace courier::http
