#include "core/http/connection_pool.hpp"

#include <algorithm>
#include <utility>

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
                                 std::shared_ptr<net::ssl::context> tls)
    : ioc_(ioc), endpoint_(std::move(ep)), settings_(std::move(s)), tls_(std::move(tls)) {}

void connection_pool::submit(exchange ex) {
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
      // The timer is never cancelled: once the request leaves the queue it fires as a no-op.
      // That keeps the timer object out of reach of any thread but its own handler.
      const std::uint64_t id = next_id_++;
      auto timer = std::make_shared<net::steady_timer>(ioc_, ex.deadline);
      queue_.push_back(queued{id, std::move(ex)});
      timer->async_wait([weak = weak_from_this(), id, timer](boost::system::error_code ec) {
        if (ec) {
          return;
        }
        if (const auto self = weak.lock()) {
          self->on_queue_deadline(id);
        }
      });
      return;
    }
  }
  conn->start(std::move(ex));
}

bool connection_pool::release(const std::shared_ptr<connection>& conn, bool reusable) {
  std::shared_ptr<connection> next_conn;
  exchange next;
  bool keep = false;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    busy_.erase(conn.get());
    if (!reusable || shut_down_) {
      --open_;
      if (!shut_down_ && !queue_.empty()) {
        next = std::move(queue_.front().ex);
        queue_.pop_front();
        next_conn = open_connection();
      }
    } else if (!queue_.empty()) {
      next = std::move(queue_.front().ex);
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
  std::deque<queued> dropped;
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
    complete_later(std::move(q.ex), shut_down_response());
  }
}

void connection_pool::on_queue_deadline(std::uint64_t id) {
  exchange expired;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    // Deadlines grow in queue order, so an expired request is almost always at the front.
    const auto it =
        std::find_if(queue_.begin(), queue_.end(), [id](const queued& q) { return q.id == id; });
    if (it == queue_.end()) {
      return;  // already handed to a connection
    }
    expired = std::move(it->ex);
    queue_.erase(it);
  }
  response r;
  r.error = transport_error::timeout;
  r.error_message = "timed out after " + std::to_string(settings_.timeout.count()) +
                    " ms waiting for a free connection (all " +
                    std::to_string(settings_.max_connections) + " busy)";
  expired.on_done(std::move(r));
}

void connection_pool::complete_later(exchange ex, response r) {
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
