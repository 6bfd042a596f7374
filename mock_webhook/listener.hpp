#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/error.hpp>

#include "mock_webhook/router.hpp"

namespace courier::mock {

// Accepts connections and gives each its own session on its own strand. Kept alive by its
// pending accept; destroyed with the io_context.
class listener : public std::enable_shared_from_this<listener> {
 public:
  // Binds and listens right away, so the port is known (and errors thrown) before run().
  // `tls` set: every connection is served over TLS with it.
  listener(boost::asio::io_context& ioc, const boost::asio::ip::tcp::endpoint& where,
           std::shared_ptr<router> routes, std::chrono::milliseconds hang_for,
           std::shared_ptr<boost::asio::ssl::context> tls = nullptr);

  std::uint16_t port() const { return port_; }
  void run();

 private:
  void accept();
  void on_accept(boost::beast::error_code ec, boost::asio::ip::tcp::socket socket);

  boost::asio::io_context& ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::shared_ptr<router> routes_;
  std::chrono::milliseconds hang_for_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  std::uint16_t port_ = 0;
};

}  // namespace courier::mock
