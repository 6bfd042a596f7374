#include "core/http/connection_pool.hpp"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>

#include "core/http/connection.hpp"

namespace courier::http {

namespace net = boost::asio;

namespace {

response shut_down_response() {
  response r;
  r.error = transport_error::reset;
  r.error_message = "client shut down";
  return r;
}

}  // namespace

connection_pool::connection_pool(net::io_context& ioc, endpoint ep, client_settings s,
                                 std::shared_ptr<net::ssl::context> tls,
                                 std::size_t client_connections)
    : ioc_(ioc),
      endpoint_(std::move(ep)),
      settings_(std::move(s)),
      tls_(std::move(tls)),
      client_connections_(client_connections),
      queue_timer_(ioc) {}

void connection_pool::submit(exchange ex) {
  outstanding_.fetch_add(1, std::memory_order_relaxed);
  std::shared_ptr<connection> conn;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (shut_down_) {
      complete_later(std::move(ex), shut_down_response());
      return;
    }
    if (!idle_.empty()) {
      conn = std::move(idle_.back());
      idle_.pop_back();
      busy_.emplace(conn.get(), conn);
    } else if (open_ < settings_.max_connections) {
      conn = open_connection();
    } else {
      queue_.push_back(std::move(ex));
      if (!queue_timer_armed_) {
        queue_timer_armed_ = true;
        net::post(ioc_, [weak = weak_from_this()] {
          if (const auto self = weak.lock()) {
            self->arm_queue_timer();
          }
        });
      }
      return;
    }
  }
  conn->start(std::move(ex));
}

bool connection_pool::release(const std::shared_ptr<connection>& conn, bool reusable) {
  outstanding_.fetch_sub(1, std::memory_order_relaxed);
  std::shared_ptr<connection> next_conn;
  exchange next;
  bool keep = false;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    busy_.erase(conn.get());
    if (!reusable || shut_down_) {
      --open_;
      if (!shut_down_ && !queue_.empty()) {
        next = std::move(queue_.front());
        queue_.pop_front();
        next_conn = open_connection();
      }
    } else if (!queue_.empty()) {
      next = std::move(queue_.front());
      queue_.pop_front();
      busy_.emplace(conn.get(), conn);
      next_conn = conn;
      keep = true;
    } else {
      idle_.push_back(conn);
      keep = true;
    }
  }
  if (next_conn) {
    next_conn->start(std::move(next));
  }
  return keep;
}

std::size_t connection_pool::idle_connections() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return idle_.size();
}

void connection_pool::shutdown() {
  std::vector<std::shared_ptr<connection>> to_abort;
  std::deque<exchange> dropped;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (shut_down_) {
      return;
    }
    shut_down_ = true;
    open_ -= idle_.size();
    to_abort.swap(idle_);
    for (const auto& [key, weak] : busy_) {
      if (auto conn = weak.lock()) {
        to_abort.push_back(std::move(conn));
      }
    }
    dropped.swap(queue_);
  }
  for (const auto& conn : to_abort) {
    conn->abort();
  }
  for (auto& q : dropped) {
    complete_later(std::move(q), shut_down_response());
  }
}

void connection_pool::arm_queue_timer() {
  std::chrono::steady_clock::time_point at;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.empty()) {
      queue_timer_armed_ = false;
      return;
    }
    at = queue_.front().deadline;
  }
  queue_timer_.expires_at(at);
  queue_timer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec) {
      return;  // the pool is going away
    }
    if (const auto self = weak.lock()) {
      self->on_queue_timer();
    }
  });
}

void connection_pool::on_queue_timer() {
  std::vector<exchange> expired;
  const auto now = std::chrono::steady_clock::now();
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    while (!queue_.empty() && queue_.front().deadline <= now) {
      expired.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
  }
  outstanding_.fetch_sub(expired.size(), std::memory_order_relaxed);
  for (auto& ex : expired) {
    response r;
    r.error = transport_error::timeout;
    r.error_message = "timed out after " + std::to_string(settings_.timeout.count()) +
                      " ms waiting for a free connection (all " +
                      std::to_string(client_connections_) + " busy)";
    ex.on_done(std::move(r));
  }
  arm_queue_timer();  // the next front, or the chain ends
}

void connection_pool::complete_later(exchange ex, response r) {
  outstanding_.fetch_sub(1, std::memory_order_relaxed);
  net::post(ioc_, [on_done = std::move(ex.on_done), r = std::move(r)]() mutable {
    on_done(std::move(r));
  });
}

std::shared_ptr<connection> connection_pool::open_connection() {
  ++open_;
  auto conn = std::make_shared<connection>(ioc_, shared_from_this());
  busy_.emplace(conn.get(), conn);
  return conn;
}

}  // namespace courier::http
